import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("2026-07-28: server/discover answers with the supported versions", async () => {
  const res = await SELF.fetch("http://localhost/mcp", {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "server/discover",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
    }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { result: { supportedVersions: string[]; resultType: string } };
  expect(body.result.resultType).toBe("complete");
  expect(body.result.supportedVersions).toContain("2026-07-28");
});

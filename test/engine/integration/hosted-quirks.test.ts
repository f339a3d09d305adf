/**
 * Hosted clients' request shapes (scripts/doctor/quirks.mjs, each from a public thread): served on
 * both lanes by default, in a form the request's Accept takes, and counted on the log line and the
 * metrics point; refused again with STRICT_HEADERS=on. What stays strict whatever the setting (the
 * routing headers gateways route on, an unknown revision) is checked here too.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../app/index";
import { QUIRK_CASES, initializeRequest, quirkProblem, quirkRequest } from "../../../scripts/doctor/quirks.mjs";
import { MCP_URL, buildModernRequest, type RpcMessage } from "../helpers/mcp";

const STRICT = { STRICT_HEADERS: "on" };

/** One request through the Worker, with vars added to its env (the session's object gets the setting from the Worker). */
async function send([url, init]: [string, RequestInit], vars: Record<string, unknown> = {}) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init), { ...env, ...vars } as never, ctx);
  const answer = {
    status: res.status,
    contentType: res.headers.get("Content-Type") ?? "",
    text: await res.text(),
    sessionId: res.headers.get("Mcp-Session-Id") ?? undefined,
  };
  await waitOnExecutionContext(ctx);
  return answer;
}

/** A quirk's request, in a fresh 2025-11-25 session on the legacy lane. */
async function replay(c: (typeof QUIRK_CASES)[number], vars: Record<string, unknown> = {}) {
  let sessionId: string | undefined;
  if (c.lane === "legacy") {
    sessionId = (await send(initializeRequest(MCP_URL), vars)).sessionId;
    expect(sessionId).toBeTruthy();
  }
  return send(quirkRequest(c, MCP_URL, { sessionId }), vars);
}

const bodyOf = (a: { contentType: string; text: string }): RpcMessage =>
  JSON.parse(
    a.contentType.includes("text/event-stream")
      ? a.text
          .split("\n")
          .find((l) => l.startsWith("data:"))!
          .slice(5)
      : a.text,
  );

afterEach(() => vi.restoreAllMocks());

describe("hosted clients' quirks, default mode", () => {
  it.each(QUIRK_CASES.map((c) => [`${c.quirk.id} (${c.lane}; ${c.quirk.threads.join(", ")})`, c] as const))("serves %s", async (_, c) => {
    const answer = await replay(c);
    expect(quirkProblem(c, answer)).toBeUndefined();
    expect(bodyOf(answer).result.tools.length).toBeGreaterThan(0);
  });

  it("counts each served quirk on the request's log line, on both lanes", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    for (const c of QUIRK_CASES) await replay(c);
    const quirksLogged = lines.filter((l) => l.startsWith('{"mcp":"request"')).map((l) => [JSON.parse(l).lane, JSON.parse(l).quirks]);
    for (const c of QUIRK_CASES) expect(quirksLogged).toContainEqual([c.lane, c.quirk.id]);
  });

  it("puts the quirk in the metrics point (blob7), and nothing for a well-formed request", async () => {
    const points: { blobs?: string[] }[] = [];
    const MCP_METRICS = { writeDataPoint: (p: { blobs?: string[] }) => void points.push(p) };
    const c = QUIRK_CASES.find((q) => q.quirk.id === "version-other")!;
    await replay(c, { MCP_METRICS });
    const { message, headers } = buildModernRequest("tools/list");
    await send([MCP_URL, { method: "POST", headers, body: JSON.stringify(message) }], { MCP_METRICS });
    expect(points.map((p) => p.blobs![6])).toEqual(["version-other", ""]);
  });

  it("answers JSON to a client that accepts only JSON, even when the call reports progress (both lanes)", async () => {
    const params = { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: "p" } };
    const { message, headers } = buildModernRequest("tools/call", params, { headers: { Accept: "application/json" } });
    const modern = await send([MCP_URL, { method: "POST", headers, body: JSON.stringify(message) }]);
    expect([modern.status, modern.contentType]).toEqual([200, "application/json"]);
    expect(JSON.parse(modern.text).result.content[0].text).toBe("Liftoff!");

    const sessionId = (await send(initializeRequest(MCP_URL))).sessionId!;
    const legacy = await send([
      MCP_URL,
      {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "MCP-Protocol-Version": "2025-11-25",
          "Mcp-Session-Id": sessionId,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params }),
      },
    ]);
    expect([legacy.status, legacy.contentType]).toEqual([200, "application/json"]);
    expect(JSON.parse(legacy.text)).toMatchObject({ id: 7, result: { content: [{ text: "Liftoff!" }] } });
  });
});

describe("hosted clients' quirks: answers that need a stream", () => {
  const sessionPost = (sessionId: string, accept: string, body: object) =>
    send([
      MCP_URL,
      {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: accept, "MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": sessionId },
        body: JSON.stringify(body),
      },
    ]);

  it("a 2025 call that asks the user for input, from a client that accepts only JSON, is a prompt 406, not a stream it cannot read", async () => {
    const [url, init] = initializeRequest(MCP_URL);
    const body = JSON.parse(init.body as string);
    body.params.capabilities = { elicitation: {} };
    const sessionId = (await send([url, { ...init, body: JSON.stringify(body) }])).sessionId!;
    const a = await sessionPost(sessionId, "application/json", {
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "greet", arguments: {} },
    });
    expect([a.status, a.contentType]).toEqual([406, "application/json"]);
    expect(JSON.parse(a.text)).toMatchObject({ id: 9, error: { message: expect.stringContaining("text/event-stream") } });
  });

  it("initialize from a client that accepts only SSE is one event, and keeps its Mcp-Session-Id", async () => {
    const [url, init] = initializeRequest(MCP_URL);
    const a = await send([url, { ...init, headers: { ...(init.headers as Record<string, string>), Accept: "text/event-stream" } }]);
    expect([a.status, a.contentType]).toEqual([200, "text/event-stream"]);
    expect(a.sessionId).toBeTruthy();
    expect(bodyOf(a).result.protocolVersion).toBe("2025-11-25");
  });
});

describe("hosted clients' quirks, STRICT_HEADERS=on", () => {
  it.each(QUIRK_CASES.map((c) => [`${c.quirk.id} (${c.lane})`, c] as const))("refuses %s", async (_, c) => {
    const answer = await replay(c, STRICT);
    expect([400, 406]).toContain(answer.status);
    expect(quirkProblem(c, answer)).toMatch(/HTTP 40[06]/);
  });
});

describe("what stays strict by default", () => {
  const modern = (headers: Record<string, string | null>, meta?: Record<string, unknown>) => {
    const { message, headers: h } = buildModernRequest("tools/list", {}, { headers, ...(meta ? { meta } : {}) });
    return send([MCP_URL, { method: "POST", headers: h, body: JSON.stringify(message) }]);
  };
  const code = (a: { contentType: string; text: string }) => bodyOf(a).error?.code;

  it("a missing or contradicting Mcp-Method is -32020", async () => {
    for (const h of [{ "Mcp-Method": null }, { "Mcp-Method": "tools/call" }]) {
      const a = await modern(h);
      expect([a.status, code(a)]).toEqual([400, -32020]);
    }
  });

  it("a version header naming no revision, or two different ones, is -32020", async () => {
    for (const v of ["2099-01-01", "2026-07-28, 2025-11-25"]) {
      const a = await modern({ "MCP-Protocol-Version": v });
      expect([a.status, code(a)]).toEqual([400, -32020]);
    }
  });

  it("a body naming an unknown revision is refused whatever the header says", async () => {
    const a = await modern({}, { "io.modelcontextprotocol/protocolVersion": "v999.0.0" });
    expect([a.status, code(a)]).toEqual([400, -32020]);
  });

  it("a 2025 session refuses an older revision's header and an unknown one", async () => {
    for (const v of ["2025-06-18", "2099-01-01"]) {
      const sessionId = (await send(initializeRequest(MCP_URL))).sessionId!;
      const a = await send([
        MCP_URL,
        {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
            "MCP-Protocol-Version": v,
            "Mcp-Session-Id": sessionId,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        },
      ]);
      expect(a.status).toBe(400);
    }
  });

  it("an Accept that takes neither JSON nor SSE is 406", async () => {
    const a = await modern({ Accept: "text/html" });
    expect(a.status).toBe(406);
  });
});

/**
 * WorkerOptions.principal: an externally authenticated caller (the opt-in OAuth entry,
 * src/engine/oauth/, passes the provider's ctx.props.userId) replaces the token check.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../app/app";
import { createMcpWorker } from "../../../src/mcp";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

async function discover(principal: () => string | undefined, authEnv: Record<string, string> = {}): Promise<Response> {
  const worker = createMcpWorker(app, { principal });
  const { message, headers } = buildModernRequest("server/discover", {});
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
    { ...env, ...authEnv } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

describe("externally authenticated principal", () => {
  it("a principal is served, and its answers are private", async () => {
    const res = await discover(() => "user-1");
    expect(res.status).toBe(200);
    expect(((await res.json()) as RpcMessage).result.cacheScope).toBe("private");
  });

  it("no principal gets 401 with a challenge naming the metadata URL", async () => {
    const res = await discover(() => undefined);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe(
      'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it("it replaces the AUTH_MODE token check", async () => {
    const res = await discover(() => "user-1", { AUTH_MODE: "token", MCP_AUTH_TOKEN: "s3cret-token" });
    expect(res.status).toBe(200);
  });
});

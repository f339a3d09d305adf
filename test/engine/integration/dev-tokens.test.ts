/**
 * `npm run dev`'s tokens (src/engine/http/dev-tokens.ts): with MCP_DEV_TOKEN_KEY set, which only
 * scripts/dev.mjs does, a token `npm run token` signed with it is a caller `mcp-dev#<sub>` with its
 * scopes and claims; without the key (every deployed Worker) the same token is refused. A request
 * without a token stays anonymous when no AUTH_MODE is on, and a real JWT still goes to the JWT check.
 * Through /mcp, with the scoped fixture app.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { SignJWT, exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { createMcpWorker, jwtAuth } from "../../../src/mcp";
import app from "../scoped-app/app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

const MCP = "http://localhost/mcp";
const KEY = "dev-key-for-this-test-only-0123456789";
const worker = createMcpWorker(app, { jwt: jwtAuth });

/** A token as `npm run token` mints it (scripts/lib/dev-token.mjs): HS256, issuer mcp-dev. */
const devToken = (sub: string, scope: string, key = KEY, extra: Record<string, unknown> = {}) =>
  new SignJWT({ scope, ...extra })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer("mcp-dev")
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime("1h")
    .sign(new TextEncoder().encode(key));

async function call(
  vars: Record<string, string>,
  tool: string,
  args: Record<string, unknown>,
  token?: string,
): Promise<{ status: number; body: RpcMessage }> {
  const { message, headers } = buildModernRequest("tools/call", { name: tool, arguments: args }, {});
  const ctx = createExecutionContext();
  const req = new Request(MCP, {
    method: "POST",
    headers: { ...headers, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(message),
  });
  const res = await worker.fetch(req, { ...env, ...vars } as never, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as RpcMessage };
}
const text = (body: RpcMessage) => (body.result as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text ?? "";

describe("dev tokens under npm run dev (MCP_DEV_TOKEN_KEY set)", () => {
  const dev = { MCP_DEV_TOKEN_KEY: KEY };

  it("a dev token is the caller mcp-dev#<sub> with its scopes and the claims the app names", async () => {
    const r = await call(dev, "whoami", {}, await devToken("alice", "notes:write", KEY, { email: "alice@example.test" }));
    expect(r.status).toBe(200);
    expect(JSON.parse(text(r.body))).toMatchObject({
      principal: "mcp-dev#alice",
      scopes: ["notes:write"],
      claims: { email: "alice@example.test" },
    });
  });

  it("its scopes are checked: bob with notes:read may not delete, alice with notes:write may", async () => {
    const bob = await call(dev, "delete_note", { id: "n1" }, await devToken("bob", "notes:read"));
    expect(bob.status).toBe(403);
    const alice = await call(dev, "delete_note", { id: "n1" }, await devToken("alice", "notes:write"));
    expect(text(alice.body)).toBe("deleted n1");
  });

  it("a token signed with another key, or expired, gets 401", async () => {
    expect((await call(dev, "whoami", {}, await devToken("alice", "notes:write", "another-key-another-key-another-key"))).status).toBe(401);
    const expired = await new SignJWT({ scope: "notes:write" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("mcp-dev")
      .setSubject("alice")
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(KEY));
    expect((await call(dev, "whoami", {}, expired)).status).toBe(401);
  });

  it("without a token the caller is anonymous (AUTH_MODE=none), as without the key", async () => {
    // The fixture's operations need its baseline scope, so an anonymous caller is refused (secure by default).
    const r = await call(dev, "whoami", {});
    expect(r.status).toBe(200);
    expect(r.body.result).toBeUndefined();
    expect((r.body.error as { message: string }).message).toMatch(/AUTH_MODE/);
  });

  it("beside AUTH_MODE=jwt: a dev token and a real JWT are each checked by their own", async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1" };
    const jwt = { AUTH_MODE: "jwt", AUTH_ISSUER: "https://idp.example.test", AUTH_JWKS: JSON.stringify({ keys: [jwk] }) };
    const real = await new SignJWT({ scope: "notes:read" })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setIssuer("https://idp.example.test")
      .setAudience(MCP)
      .setSubject("carol")
      .setExpirationTime("1h")
      .sign(pair.privateKey);
    expect(JSON.parse(text((await call({ ...dev, ...jwt }, "whoami", {}, real)).body)).principal).toBe("https://idp.example.test#carol");
    expect(JSON.parse(text((await call({ ...dev, ...jwt }, "whoami", {}, await devToken("alice", "notes:read"))).body)).principal).toBe(
      "mcp-dev#alice",
    );
    expect((await call({ ...dev, ...jwt }, "whoami", {})).status).toBe(401);
  });
});

describe("a deployed Worker (no MCP_DEV_TOKEN_KEY) never accepts a dev token", () => {
  it("AUTH_MODE=jwt: 401", async () => {
    const jwt = { AUTH_MODE: "jwt", AUTH_ISSUER: "https://idp.example.test", AUTH_JWKS: JSON.stringify({ keys: [] }) };
    expect((await call(jwt, "whoami", {}, await devToken("alice", "notes:write"))).status).toBe(401);
  });

  it("AUTH_MODE=none: the token is not read, the caller stays anonymous", async () => {
    // Read, it would make alice the caller; unread, the caller is anonymous and the scoped fixture refuses it.
    const r = await call({}, "whoami", {}, await devToken("alice", "notes:write"));
    expect(text(r.body)).toBe("");
    expect((r.body.error as { message: string }).message).toMatch(/AUTH_MODE/);
  });
});

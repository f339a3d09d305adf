/**
 * Mounting the MCP endpoint beside other routes (README "Mount it beside other routes"): `handle`
 * answers only its own path and returns undefined for the rest, so itty-router and Hono go on to
 * their next route; the `path` option moves the endpoint.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { Hono } from "hono";
import { AutoRouter } from "itty-router";
import { describe, expect, it } from "vitest";
import { createMcpWorker } from "../../../src/mcp";
import app from "../app/app";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";

type Fetcher = { fetch(request: Request, env: never, ctx: ExecutionContext): Response | Promise<Response> };

async function send(worker: Fetcher, url: string, init?: RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(url, init), env as never, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

function discover(worker: Fetcher, path = "/mcp") {
  const { message, headers } = buildModernRequest("server/discover", {});
  return send(worker, `http://localhost${path}`, { method: "POST", headers, body: JSON.stringify(message) });
}

async function expectServed(res: Response) {
  expect(res.status).toBe(200);
  expect(((await res.json()) as RpcMessage).result.supportedVersions).toContain("2026-07-28");
}

describe("mounting", () => {
  it("handle answers its own path and returns undefined for any other", async () => {
    const mcp = createMcpWorker(app);
    const ctx = createExecutionContext();
    expect(await mcp.handle(new Request("http://localhost/"), env as never, ctx)).toBeUndefined();
    expect(await mcp.handle(new Request("http://localhost/mcp/extra"), env as never, ctx)).toBeUndefined();
    await expectServed((await discover({ fetch: async (r, e, c) => (await mcp.handle(r, e, c))! }))!);
  });

  it("fetch answers 404 off the endpoint, naming where it is", async () => {
    const res = await send(createMcpWorker(app), "http://localhost/elsewhere");
    expect(res.status).toBe(404);
    // A plain 404 (no JSON-RPC exchange was begun there), naming the endpoint.
    expect(await res.text()).toMatch(/\/mcp/);
  });

  it("the endpoint answers with trailing slashes too, and no other spelling of its path", async () => {
    const mcp = createMcpWorker(app);
    await expectServed(await discover(mcp, "/mcp/"));
    await expectServed(await discover(mcp, "/mcp//"));
    for (const other of ["//mcp", "/mcpx", "/mcp/x", "/MCP", "/"]) expect((await discover(mcp, other)).status, other).toBe(404);
    await expectServed(await discover(createMcpWorker(app, { path: "/api/mcp/" }), "/api/mcp"));
  });

  it("the path option moves the endpoint", async () => {
    const mcp = createMcpWorker(app, { path: "/api/mcp" });
    await expectServed(await discover(mcp, "/api/mcp"));
    expect((await discover(mcp, "/mcp")).status).toBe(404);
  });

  it("itty-router: other routes and the MCP endpoint side by side", async () => {
    const mcp = createMcpWorker(app);
    const router = AutoRouter();
    router.get("/", () => new Response("home"));
    router.all("*", mcp.handle);
    expect(await (await send(router, "http://localhost/")).text()).toBe("home");
    await expectServed(await discover(router));
    expect((await send(router, "http://localhost/nowhere")).status).toBe(404);
  });

  it("Hono: other routes and the MCP endpoint side by side", async () => {
    const mcp = createMcpWorker(app);
    const web = new Hono();
    web.get("/", (c) => c.text("home"));
    web.all("*", async (c, next) => (await mcp.handle(c.req.raw, c.env as never, c.executionCtx)) ?? next());
    expect(await (await send(web, "http://localhost/")).text()).toBe("home");
    await expectServed(await discover(web));
    expect((await send(web, "http://localhost/nowhere")).status).toBe(404);
  });
});

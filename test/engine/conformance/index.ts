/** The Worker entry of the conformance fixture app (`npm run dev:conformance`). */
import { createMcpWorker, type WorkerContext } from "../../../src/mcp";
import type { Env } from "../../../src/engine/env";
import app from "./app";
import { conformanceTokens } from "./scopes";

const worker = createMcpWorker(app);
/**
 * A request with a token is authenticated (scopes.ts) and its operations' scopes are checked; one
 * without is served as the suite's other scenarios expect. Both serve the same app and objects.
 */
const scoped = createMcpWorker(app, { verifyToken: conformanceTokens, authorizationServers: ["https://conformance-as.invalid"] });
export const { McpHub, McpSession, McpTask, McpEvents } = worker;
const authenticated = (request: Request) =>
  request.headers.has("Authorization") || new URL(request.url).pathname.startsWith("/.well-known/");
export default {
  // The RFC 9728 metadata the challenges name is the scoped worker's too.
  fetch: (request: Request, env: Env, ctx: WorkerContext) => (authenticated(request) ? scoped : worker).fetch(request, env, ctx),
};

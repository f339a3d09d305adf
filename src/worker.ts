/**
 * Builds the Worker for an app: the router, the /mcp edge (gate, era
 * classification, the two lanes) and the error stage. `src/index.ts` wires
 * the example app through it; the conformance fixture app uses it too.
 */
import { IttyRouter } from "itty-router";
import { readConfig, type Env } from "./config";
import type { AppDefinition } from "./mcp/app";
import { ErrorCode } from "./mcp/errors";
import { parseMessage } from "./mcp/jsonrpc";
import { compileApp } from "./mcp/registry";
import { classifyEra } from "./http/classify";
import { preflight, withCors } from "./http/cors";
import { checkHostAndOrigin, checkPostMediaTypes, readBody } from "./http/gate";
import { serveLegacyDelete, serveLegacyGet, serveLegacyPost, type LegacyDeps } from "./http/legacy";
import { serveListen } from "./http/listen";
import { serveModernRequest } from "./http/modern";
import { createNotifier } from "./http/notify";
import { accepted, methodNotAllowed, reject, rpcError } from "./http/responses";
import { McpError } from "./mcp/errors";

export const MCP_PATH = "/mcp";

export function createMcpWorker(app: AppDefinition) {
  // Compiled once per isolate: schemas, lists and lookups are constants from here on.
  const reg = compileApp(app);

  async function handleMcp(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const config = readConfig(env);
    const gate = checkHostAndOrigin(request, config);
    if (gate instanceof Response) return gate;
    const { origin } = gate;
    if (request.method === "OPTIONS") return preflight(request, origin);
    // Authorization decides the principal here once it is on; anonymous until then.
    const legacy: LegacyDeps = { reg, config, env, principal: "" };
    let response: Response;
    if (request.method === "POST") response = await handlePost(request, env, ctx, legacy);
    // GET and DELETE only exist for 2025 sessions (2026-07-28 is POST only).
    else if (request.method === "GET") response = await serveLegacyGet(request, legacy);
    else if (request.method === "DELETE") response = await serveLegacyDelete(request, legacy);
    else response = methodNotAllowed("GET, POST, DELETE");
    return withCors(response, origin);
  }

  async function handlePost(request: Request, env: Env, ctx: ExecutionContext, legacy: LegacyDeps): Promise<Response> {
    const config = legacy.config;
    const media = checkPostMediaTypes(request);
    if (media) return media;
    const body = await readBody(request, config.maxBodyBytes);
    if (body instanceof Response) return body;

    let msg;
    try {
      msg = parseMessage(body);
    } catch (err) {
      const e = err as McpError;
      return rpcError(readId(body), e.toJSON(), e.status ?? 400);
    }
    if (classifyEra(msg, request.headers) === "legacy") return serveLegacyPost(request, msg, legacy);
    if (msg.kind !== "request") return accepted();

    const notify = createNotifier(env);
    return serveModernRequest(request, msg.message, {
      reg,
      config,
      env,
      notify,
      waitUntil: (p) => ctx.waitUntil(p),
      listen: (m) => serveListen(m, reg, env),
    });
  }

  const router = IttyRouter();
  router.all(MCP_PATH, handleMcp);
  router.all("*", () => reject(404, ErrorCode.MethodNotFound, `Not found; the MCP endpoint is ${MCP_PATH}`));

  return {
    async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
      try {
        return await router.fetch(request, env, ctx);
      } catch (err) {
        console.error("Unhandled error at the /mcp edge:", err);
        return reject(500, ErrorCode.InternalError, "Internal error");
      }
    },
  } satisfies ExportedHandler<Env>;
}

/** The id of a message that failed validation, so the error can echo it. */
function readId(body: string): string | number | null {
  try {
    const parsed = JSON.parse(body) as { id?: unknown };
    const id = parsed?.id;
    return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
  } catch {
    return null;
  }
}

/**
 * A fixture app that mounts the engine test app (test/engine/app/app.ts) through a service binding
 * (MOUNT_UPSTREAM): as `ex` (whichever revision the client picks), as `old` (a 2025-11-25 session
 * upstream), as `cut` (a binding whose answers break off after their first chunk: an upstream that
 * dies mid-call), as `rec` (with a static token, each request's Authorization recorded), and as
 * `down` (an address nothing listens on), and as `chg` (kept no time, its tool `greet` listed as `hello` while
 * `changingUpstream.renamed` is set: an upstream whose list changes). Scopes: `ex_roll_dice` needs
 * `dice:roll`; the policy refuses `ex_convert_temperature` to principals named `refused-…`.
 * What test/engine/integration/mount-server.test.ts calls; its session class is bound only in the
 * engine tests (vitest-index.ts), so the engine app's bundle carries none of it.
 */
import { ToolError, defineApp, defineAuthorization, defineTool, mountServer } from "../../../src/mcp";

type MountEnv = { MOUNT_UPSTREAM: Fetcher };

/** A binding whose streamed answers (SSE) end with an error after their first chunk. */
const cutting = (upstream: Fetcher): Fetcher =>
  ({
    async fetch(input: RequestInfo | URL, init?: RequestInit) {
      const res = await upstream.fetch(input as never, init as never);
      if (!res.headers.get("Content-Type")?.includes("text/event-stream") || !res.body) return res;
      const reader = res.body.getReader();
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent) return controller.error(new Error("the upstream went away"));
          const { value, done } = await reader.read();
          sent = true;
          if (done) controller.close();
          else controller.enqueue(value);
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    },
  }) as unknown as Fetcher;

/** The Authorization header of every request the `rec` mount sent upstream, in order. */
export const recordedAuthorization: (string | null)[] = [];
const recording = (upstream: Fetcher): Fetcher =>
  ({
    fetch(input: RequestInfo | URL, init?: RequestInit) {
      recordedAuthorization.push(new Request(input, init).headers.get("Authorization"));
      return upstream.fetch(input as never, init as never);
    },
  }) as unknown as Fetcher;

/** While `renamed` is set, the `chg` mount's upstream lists its tool `greet` as `hello`. */
export const changingUpstream = { renamed: false };
const changing = (upstream: Fetcher): Fetcher =>
  ({
    async fetch(input: RequestInfo | URL, init?: RequestInit) {
      const res = await upstream.fetch(input as never, init as never);
      if (!changingUpstream.renamed) return res;
      const text = (await res.text()).replace('"name":"greet"', '"name":"hello"');
      return new Response(text, { status: res.status, headers: res.headers });
    },
  }) as unknown as Fetcher;

export default defineApp<MountEnv>({
  info: { name: "mount-app", version: "1.0.0" },
  tools: [defineTool({ name: "local_echo", handler: () => "local" })],
  mounts: [
    mountServer<MountEnv>({ prefix: "ex", url: (env) => env.MOUNT_UPSTREAM, toolScopes: { roll_dice: ["dice:roll"] } }),
    mountServer<MountEnv>({ prefix: "old", url: (env) => env.MOUNT_UPSTREAM, protocol: "2025-11-25" }),
    mountServer<MountEnv>({ prefix: "cut", url: (env) => cutting(env.MOUNT_UPSTREAM), timeoutMs: 5000 }),
    mountServer<MountEnv>({
      prefix: "rec",
      url: (env) => recording(env.MOUNT_UPSTREAM),
      headers: () => ({ Authorization: "Bearer upstream-static" }),
    }),
    mountServer<MountEnv>({ prefix: "chg", url: (env) => changing(env.MOUNT_UPSTREAM), listTtlMs: 0 }),
    mountServer({ prefix: "down", url: "http://127.0.0.1:9/mcp", timeoutMs: 5000 }),
  ],
  authorization: defineAuthorization({
    policy: (op, next) => {
      if (op.name === "ex_convert_temperature" && op.auth?.principal.startsWith("refused-"))
        throw new ToolError("Conversions are not for you");
      return next();
    },
  }),
});

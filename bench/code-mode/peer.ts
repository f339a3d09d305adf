/**
 * The peer of bench/code-mode.mjs: `@cloudflare/codemode` 0.5.6's DynamicWorkerExecutor running the
 * same code against the same two note functions as the engine's `execute` (test/engine/code-mode/),
 * in a bare Worker: no MCP request, no scope check, no middleware, no span or log line per inner call.
 * POST a JSON `{ code }` (an async arrow function, as that executor takes it); answers its result.
 */
import { DynamicWorkerExecutor } from "@cloudflare/codemode";

interface PeerEnv {
  LOADER: WorkerLoader;
}

const notes = new Map<number, { id: number; title: string; text: string }>();
const fns = {
  notes_add: async (args: unknown) => {
    const { title, text } = args as { title: string; text: string };
    const id = notes.size + 1;
    notes.set(id, { id, title, text });
    return { id, title };
  },
  notes_get: async (args: unknown) => notes.get((args as { id: number }).id),
};

export default {
  async fetch(request: Request, env: PeerEnv): Promise<Response> {
    const { code } = (await request.json()) as { code: string };
    const executor = new DynamicWorkerExecutor({ loader: env.LOADER, timeout: 10_000 });
    const result = await executor.execute(code, [{ name: "codemode", fns }]);
    return Response.json(result);
  },
};

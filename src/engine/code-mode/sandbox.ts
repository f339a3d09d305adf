/**
 * Runs one `execute` in a Dynamic Worker (the `worker_loaders` binding): a fresh isolate per run, no
 * network (`globalOutbound: null`), no bindings, and one capability back into the engine: the port
 * passed as the argument of its entrypoint's call. The port is a function made for this run alone,
 * holding the outer call's `ctx.callTool`, so the sandbox can act only as the caller whose request it
 * serves, and only until the run ends; there is no entrypoint a sandbox could name to reach another
 * request or caller. The host enforces every limit that matters itself: the count of inner calls, the
 * wall-clock time, the bytes of result and console it accepts. A refusal (an insufficient scope, a
 * middleware's McpError, an input round) ends the run at once and becomes the outer call's, whatever
 * the code does with the rejection.
 */
import type { CallToolResult } from "../mcp/types";
import { sandboxModule } from "./sandbox-modules";

/** The limits of one run (codeMode's options, resolved). */
export interface SandboxLimits {
  /** CPU the Dynamic Worker may use (Cloudflare enforces it; workerd has no CPU limit, the step budget stands in). */
  cpuMs: number;
  /** Wall-clock time of the whole run, waits for inner calls included. */
  timeoutMs: number;
  /** Inner calls one run may make. */
  maxCalls: number;
  /** Loop iterations and function entries the code may make (instrument.ts). */
  steps: number;
  /** UTF-16 code units of the result's JSON, and of the console output, the host accepts. */
  resultBytes: number;
  logBytes: number;
}

/** A run's outcome as the host saw it; a refusal is thrown instead. */
export type RunOutcome =
  | { ok: true; json?: string; cut: number; logs: string[]; logsCut: number }
  | { ok: false; error: string; logs: string[]; logsCut: number };

type InnerCall = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;

/** What a tool's answer is to the code: its structured content, else its text. */
function valueOf(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = (result.content ?? []).flatMap((c) => (c.type === "text" ? [c.text] : []));
  return text.length > 0 ? text.join("\n") : (result.content ?? []);
}

const messageOfResult = (result: CallToolResult) =>
  (result.content ?? []).flatMap((c) => (c.type === "text" ? [c.text] : [])).join("\n") || "the tool failed";

/** The `tools` capability of one run: every call an inner call of the outer request, counted. */
export class ToolPort {
  #call: InnerCall;
  #known: (name: string) => boolean;
  #left: number;
  #max: number;
  #open = true;
  /** Set by the first call that must end the run (a refusal, or one call too many); the host throws it. */
  stopped?: unknown;
  #onStop: (reason: unknown) => void = () => {};

  /** `known`: whether the app has a tool of that name the code may name (its scopes are the inner call's to check). */
  constructor(call: InnerCall, known: (name: string) => boolean, maxCalls: number) {
    this.#call = call;
    this.#known = known;
    this.#left = this.#max = maxCalls;
  }

  /** Resolves when the run must end at once (`stopped` says why). */
  whenStopped(): Promise<void> {
    return new Promise((resolve) => {
      this.#onStop = (reason) => {
        this.stopped ??= reason;
        resolve();
      };
    });
  }

  close(): void {
    this.#open = false;
  }

  /** Called by the sandbox: `{ value }` for a result, `{ error }` for a tool error the code may handle. */
  async call(name: unknown, args: unknown): Promise<{ value: unknown } | { error: string }> {
    if (!this.#open) return { error: "execute has ended: a tool call after the run is refused" };
    if (typeof name !== "string" || !this.#known(name))
      return {
        error: `tools.${String(name).slice(0, 128)} does not exist: Object.keys(tools) lists the tools you may call, search_tools finds them`,
      };
    if (typeof args !== "object" || args === null || Array.isArray(args)) return { error: `tools.${name} takes one object of arguments` };
    if (--this.#left < 0) {
      const err = new CallBudgetSpent(this.#max);
      this.#onStop(err);
      return { error: err.message };
    }
    try {
      const result = await this.#call(name, args as Record<string, unknown>);
      return result.isError === true ? { error: messageOfResult(result) } : { value: valueOf(result) };
    } catch (refusal) {
      // Not the tool's own error: the server refused the call (scope, middleware, rate limit) or asks
      // the user first. The code may catch the rejection; the outer call answers the refusal anyway.
      this.#onStop(refusal);
      return { error: refusal instanceof Error ? refusal.message : "the call was refused" };
    }
  }
}

/** More inner calls than one run may make: the outer call's tool error. */
export class CallBudgetSpent extends Error {
  constructor(max: number) {
    super(`execute made more than ${max} tool calls; one run may make at most ${max} (codeMode({ maxCalls }))`);
  }
}

/**
 * Runs `fn` (instrument.ts's function, named `names.fn` and stepping `names.step`) with `port`;
 * throws the refusal that stopped it, if one did.
 */
export async function runSandboxed(
  loader: WorkerLoader,
  fn: string,
  fnNames: { fn: string; step: string },
  port: ToolPort,
  names: string[],
  limits: SandboxLimits,
): Promise<RunOutcome> {
  // load(), not get(id): each run a fresh isolate, nothing cached between callers.
  const worker = loader.load({
    // An older date than the engine's: the sandbox needs none of the later defaults, and the ones it
    // would get cost every run's isolate about 3 ms of start-up CPU on workerd (bench/code-mode.mjs).
    compatibilityDate: "2025-06-01",
    mainModule: "main.js",
    modules: { "main.js": sandboxModule(fn, fnNames, limits.steps, names, { resultBytes: limits.resultBytes, logBytes: limits.logBytes }) },
    globalOutbound: null,
    // No env: the sandbox gets no bindings.
    limits: { cpuMs: limits.cpuMs },
  });
  let timer: number | undefined;
  const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), limits.timeoutMs)));
  type Call = ToolPort["call"];
  const entry = worker.getEntrypoint() as unknown as { run(call: Call): Promise<SandboxAnswer> };
  try {
    const answer = await Promise.race([
      // A function crosses Workers RPC as a stub: the sandbox calls back into this one, nothing more.
      entry.run((name, args) => port.call(name, args)),
      timedOut,
      port.whenStopped().then(() => "stopped" as const),
    ]);
    if (port.stopped !== undefined) throw port.stopped;
    if (answer === "timeout")
      return { ok: false, error: `execute ran past its time limit of ${limits.timeoutMs} ms and was stopped`, logs: [], logsCut: 0 };
    if (answer === "stopped") throw port.stopped;
    return checked(answer, limits);
  } catch (err) {
    if (err === port.stopped) throw err;
    // The isolate itself failed: the code threw at load, or the platform stopped it (cpuMs).
    return { ok: false, error: loadFailure(err), logs: [], logsCut: 0 };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    port.close();
    // The stubs of the entrypoint and of the worker both hold the isolate: let both go at once.
    dispose(entry);
    dispose(worker);
  }
}

interface SandboxAnswer {
  json?: unknown;
  length?: unknown;
  error?: unknown;
  logs?: unknown;
  logsCut?: unknown;
}

/** The sandbox's answer as the host accepts it: typed, and cut to the caps again (the sandbox is not trusted). */
function checked(answer: SandboxAnswer, limits: SandboxLimits): RunOutcome {
  const logs: string[] = [];
  let bytes = 0;
  let logsCut = typeof answer?.logsCut === "number" ? answer.logsCut : 0;
  for (const line of Array.isArray(answer?.logs) ? answer.logs : []) {
    const s = String(line);
    if (bytes + s.length > limits.logBytes) logsCut++;
    else logs.push(s), (bytes += s.length);
  }
  if (typeof answer?.error === "string") return { ok: false, error: answer.error.slice(0, limits.resultBytes), logs, logsCut };
  const json = typeof answer?.json === "string" ? answer.json.slice(0, limits.resultBytes) : undefined;
  const length = typeof answer?.length === "number" ? answer.length : (json?.length ?? 0);
  return { ok: true, json, cut: Math.max(0, length - (json?.length ?? 0)), logs, logsCut };
}

function loadFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // workerd names the module's own error after "Uncaught"; the stack below it is the host's.
  const uncaught = /Uncaught (.*)/.exec(message)?.[1];
  return uncaught ? `the code failed as it loaded: ${uncaught}` : `the sandbox stopped: ${message.split("\n")[0]}`;
}

/** `Symbol.dispose`, which the platform has and this project's TypeScript library does not name. */
const DISPOSE = (Symbol as unknown as { dispose?: symbol }).dispose;

function dispose(resource: unknown): void {
  try {
    if (DISPOSE) (resource as Record<symbol, (() => void) | undefined>)[DISPOSE]?.();
  } catch {
    // Disposal frees the stub early; failing to is never the run's error.
  }
}

/**
 * The one module of a Code Mode run: the step budget, the model's function (instrument.ts), and the
 * entrypoint the host calls with the `tools` port. Plain JavaScript text, because it runs in the
 * Dynamic Worker, not in this one; one module, because each module costs the isolate a compile. The
 * budget's names are drawn per run, so the code cannot name them; still nothing here is trusted by
 * the host: every limit that matters (calls, time, output) is enforced on its side too (sandbox.ts).
 */

/**
 * The module for `fn` (the model's function, named `names.fn`, calling `names.step`) and `steps`:
 * runs the code with `tools` (the host's port behind a frozen object whose only keys are `tools`,
 * the tools this caller may call; another name goes to the host, which answers whether it exists),
 * captures the console, and answers the result as JSON, cut at `caps`. The tool names and caps are
 * written into the module rather than passed with the call: the call's arguments cost the run a
 * serialization each, the module's text nothing more.
 */
export const sandboxModule = (
  fn: string,
  names: { fn: string; step: string },
  steps: number,
  tools: readonly string[],
  caps: { resultBytes: number; logBytes: number },
) => `import { WorkerEntrypoint } from "cloudflare:workers";
const TOOLS = ${JSON.stringify(tools)};
const CAPS = ${JSON.stringify(caps)};
let ${names.step}_left = ${steps};
function ${names.step}() {
  if (--${names.step}_left < 0) throw new RangeError("the code ran past its budget of ${steps} steps (loop iterations and function calls)");
}
const spent = () => ${names.step}_left < 0;

const text = (v) => {
  if (typeof v === "string") return v;
  try { return JSON.stringify(v) ?? String(v); } catch { return String(v); }
};

function toolsFor(port, names) {
  const call = (name) => (args) => port(name, args === undefined ? {} : args).then((r) => {
    if ("error" in r) throw new Error(r.error);
    return r.value;
  });
  const own = Object.create(null);
  for (const name of names) own[name] = call(name);
  Object.freeze(own);
  return new Proxy(own, {
    get(target, key) {
      if (typeof key !== "string" || Object.hasOwn(target, key)) return target[key];
      // Not a tool: what an object would answer (nothing), so await, JSON and the like behave.
      if (key === "then" || key === "toJSON" || key in Object.prototype) return undefined;
      // Any other name the host judges: one the caller lacks the scope for is its step-up.
      return call(key);
    },
    set: () => false,
    defineProperty: () => false,
    setPrototypeOf: () => false,
  });
}

export default class extends WorkerEntrypoint {
  async run(port) {
    const caps = CAPS;
    const logs = [];
    let logBytes = 0;
    let logsCut = 0;
    for (const level of ["log", "info", "warn", "error", "debug"]) {
      console[level] = (...args) => {
        const line = (level === "log" || level === "info" ? "" : "[" + level + "] ") + args.map(text).join(" ");
        if (logBytes + line.length > caps.logBytes) { logsCut++; return; }
        logBytes += line.length;
        logs.push(line);
      };
    }
    try {
      const value = await ${names.fn}(toolsFor(port, TOOLS));
      if (spent()) throw new RangeError("the code ran past its step budget");
      let json = value === undefined ? undefined : JSON.stringify(value);
      return { json: json !== undefined && json.length > caps.resultBytes ? json.slice(0, caps.resultBytes) : json, length: json?.length ?? 0, logs, logsCut };
    } catch (err) {
      const message = err instanceof Error ? err.name + ": " + err.message : "Thrown: " + text(err);
      return { error: spent() ? "RangeError: the code ran past its step budget (loop iterations and function calls); it was stopped" : message, logs, logsCut };
    }
  }
}
${fn}
`;

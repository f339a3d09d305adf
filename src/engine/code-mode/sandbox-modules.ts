/**
 * The modules of a Code Mode run besides the model's own (instrument.ts makes `code.js`): `main.js`,
 * whose entrypoint the host calls with the `tools` port, and `budget.js`, the step budget. They are
 * plain JavaScript text because they run in the Dynamic Worker, not in this one. Nothing here is
 * trusted by the host: the code can reach these modules (`import("./budget.js")`), so every limit
 * that matters (calls, time, output) is also enforced on the host's side (sandbox.ts).
 */

/** `budget.js` for `steps` steps: each loop iteration or function entry spends one; past the end every step throws. */
export const budgetModule = (steps: number) => `let left = ${steps};
export function step() {
  if (--left < 0) throw new RangeError("the code ran past its budget of ${steps} steps (loop iterations and function calls)");
}
export const spent = () => left < 0;
`;

/**
 * `main.js`: runs the code with `tools` (the host's port behind a frozen object whose only keys are
 * the tools this caller may call), captures the console, and answers the result as capped JSON.
 */
export const MAIN_MODULE = `import { WorkerEntrypoint } from "cloudflare:workers";
import run from "./code.js";
import { spent } from "./budget.js";

const text = (v) => {
  if (typeof v === "string") return v;
  try { return JSON.stringify(v) ?? String(v); } catch { return String(v); }
};

function toolsFor(port, names) {
  const own = Object.create(null);
  for (const name of names) own[name] = (args) => port.call(name, args === undefined ? {} : args).then((r) => {
    if ("error" in r) throw new Error(r.error);
    return r.value;
  });
  Object.freeze(own);
  return new Proxy(own, {
    get(target, key) {
      if (typeof key !== "string" || Object.hasOwn(target, key)) return target[key];
      // Not a tool: what an object would answer (nothing), so await, JSON and the like behave.
      if (key === "then" || key === "toJSON" || key in Object.prototype) return undefined;
      return () => Promise.reject(new TypeError("tools." + key + " does not exist: Object.keys(tools) lists the tools you may call, search_tools finds them"));
    },
    set: () => false,
    defineProperty: () => false,
    setPrototypeOf: () => false,
  });
}

export default class extends WorkerEntrypoint {
  async run(port, names, caps) {
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
      const value = await run(toolsFor(port, names));
      if (spent()) throw new RangeError("the code ran past its step budget");
      let json = value === undefined ? undefined : JSON.stringify(value);
      return { json: json !== undefined && json.length > caps.resultBytes ? json.slice(0, caps.resultBytes) : json, length: json?.length ?? 0, logs, logsCut };
    } catch (err) {
      const message = err instanceof Error ? err.name + ": " + err.message : "Thrown: " + text(err);
      return { error: spent() ? "RangeError: the code ran past its step budget (loop iterations and function calls); it was stopped" : message, logs, logsCut };
    }
  }
}
`;

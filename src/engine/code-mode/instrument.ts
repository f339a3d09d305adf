/**
 * Makes the model's code a module the sandbox can run, and one that cannot run forever. workerd has
 * no CPU limit of its own (the `cpuMs` limit a Dynamic Worker gets is enforced on Cloudflare only), so
 * under `wrangler dev` and in tests a `while (true) {}` would wedge the whole runtime. Every loop
 * iteration and every function entry of the code therefore spends one step of a budget; once spent,
 * every further step throws, so no try/catch inside the code can keep it going, and the run ends with
 * a tool error. The step function's name is drawn at random per run: code cannot shadow what it
 * cannot name. Parsing first also names a syntax error (line and column of the model's code) before
 * any isolate is loaded.
 */
import type { Node, parse as Parse } from "acorn";

declare const require: (id: "acorn") => { parse: typeof Parse };
/**
 * Acorn, required rather than imported: its ES module has top-level side effects, so a bundler keeps
 * all of it in every app that imports the public door, codeMode or not; a required CommonJS module is
 * wrapped lazily and left out of a bundle that never calls this.
 */
const parse: typeof Parse = (input, options) => require("acorn").parse(input, options);

/**
 * What a parse gives: the model's code with every place a step goes (to render under a run's own
 * names, `render`), or what is wrong with the code. It names nothing of a run, so one parse serves
 * every run of the same code (prepared-cache.ts).
 */
export type Instrumented = { ok: true; source: string; inserts: readonly Insert[] } | { ok: false; message: string };

/** What `prepare` gives: the model's function under a run's names, or what is wrong with the code. */
type Prepared = { ok: true; fn: string } | { ok: false; message: string };

/** The wrapper's first line, as parsed (one function, the module's only statement); the model's line 1 is line 2. */
const HEAD = "export default async function (tools) {\n";

const LOOPS = new Set(["WhileStatement", "DoWhileStatement", "ForStatement", "ForInStatement", "ForOfStatement"]);
const FUNCTIONS = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

interface Insert {
  at: number;
  /** Plain text, or the text before and after a call of the run's step function. */
  text: string | readonly [string, string];
  /** Opening text (before what it guards) or closing text (after it). */
  open: boolean;
  depth: number;
}

/**
 * The model's function of a run: the code as the body of `async function fnName(tools)`, every loop
 * body and function body first calling `stepName()` (sandbox-modules.ts defines both beside it).
 */
export function prepare(code: string, fnName: string, stepName: string): Prepared {
  const parsed = instrument(code);
  return parsed.ok ? { ok: true, fn: render(parsed, fnName, stepName) } : parsed;
}

/** Parses the code as a function body and notes where each step goes (the costly half of `prepare`). */
export function instrument(code: string): Instrumented {
  const source = `${HEAD}${code}\n}\n`;
  let program: Node & { body: (Node & { declaration?: Node })[] };
  try {
    program = parse(source, { ecmaVersion: "latest", sourceType: "module", allowAwaitOutsideFunction: false }) as never;
  } catch (err) {
    return { ok: false, message: syntaxMessage(err) };
  }
  // The code is one function's body: a stray `}` that closes it early and goes on is refused.
  const fn = program.body[0]?.declaration;
  if (program.body.length !== 1 || !fn || fn.end !== source.length - 1)
    return { ok: false, message: "SyntaxError: the code must be the body of one function (a `}` closes it early)" };
  const inserts: Insert[] = [];
  try {
    collect(fn, 0, inserts);
  } catch {
    // The walk recurses as deep as the code nests; a stack overflow means code nested past reason.
    return { ok: false, message: "SyntaxError: the code nests too deeply" };
  }
  // At one position: closings first (inner first), then openings (outer first).
  inserts.sort((a, b) => a.at - b.at || Number(a.open) - Number(b.open) || (a.open ? a.depth - b.depth : b.depth - a.depth));
  return { ok: true, source, inserts };
}

/** The instrumented function under a run's names: from the body's `{` on, named `fnName`, stepping `stepName`. */
export function render(parsed: Extract<Instrumented, { ok: true }>, fnName: string, stepName: string): string {
  const { source, inserts } = parsed;
  const call = `${stepName}()`;
  let out = `async function ${fnName}(tools) `;
  let from = HEAD.length - 2;
  for (const insert of inserts) {
    out += source.slice(from, insert.at) + (typeof insert.text === "string" ? insert.text : insert.text[0] + call + insert.text[1]);
    from = insert.at;
  }
  return out + source.slice(from);
}

/** Walks the tree, noting where each loop body and function body gets its step. */
function collect(node: Node, depth: number, out: Insert[]): void {
  const n = node as Node & { body?: Node | Node[]; expression?: boolean };
  if ((LOOPS.has(n.type) || FUNCTIONS.has(n.type)) && n.body && !Array.isArray(n.body)) guard(n.body, FUNCTIONS.has(n.type), depth, out);
  for (const key of Object.keys(n)) {
    const value = (n as unknown as Record<string, unknown>)[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) collect(item, depth + 1, out);
    } else if (isNode(value)) collect(value, depth + 1, out);
  }
}

function guard(body: Node, ofFunction: boolean, depth: number, out: Insert[]): void {
  if (body.type === "BlockStatement") out.push({ at: body.start + 1, text: ["", ";"], open: true, depth });
  else if (ofFunction) {
    // An arrow function's expression body: `x => x` → `x => (step(), (x))`.
    out.push({ at: body.start, text: ["(", ", ("], open: true, depth });
    out.push({ at: body.end, text: "))", open: false, depth });
  } else {
    // A loop whose body is one statement: `while (x) y;` → `while (x) {step(); y;}`.
    out.push({ at: body.start, text: ["{", ";"], open: true, depth });
    out.push({ at: body.end, text: "}", open: false, depth });
  }
}

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && typeof (v as Node).type === "string";

/** Acorn's message, with the position in the model's code (its line 1 is the parsed source's line 2). */
function syntaxMessage(err: unknown): string {
  const e = err as { message?: string; loc?: { line: number; column: number } };
  const what = String(e.message ?? err).replace(/ \(\d+:\d+\)$/, "");
  if (e instanceof RangeError) return "SyntaxError: the code nests too deeply";
  return e.loc ? `SyntaxError: ${what} (line ${Math.max(1, e.loc.line - 1)}, column ${e.loc.column + 1})` : `SyntaxError: ${what}`;
}

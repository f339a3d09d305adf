// Why: the engine speaks two protocol revisions, and each rule that differs between them belongs in
// that revision's module (src/engine/mcp/revisions/). A rule written as `if (legacy) … else …` in a lane or
// a Durable Object gets written again, slightly differently, in the next file that needs it. This
// check counts those branches outside the revision modules and fails when there are more than
// ALLOWED, so the number can only go down.
//
// What counts as a revision branch (read with the TypeScript parser, so comments and types never count):
//   the test of an `if`, a `?:`, a loop or a `switch`/`case`, a comparison (=== !== == != < <= > >=),
//   the left side of `&&` / `||` / `??`, or the key of `x[…]`, that mentions a revision marker:
//     - a string literal that is a revision date ("2025-11-25") or a lane name ("legacy", "modern");
//     - an identifier or property named `era`, `legacy` or `modern`, or one of the version constants
//       and predicates of src/engine/mcp/versions.ts (MODERN_VERSION, LEGACY_VERSIONS, PER_REQUEST_VERSIONS,
//       isModernVersion, isLegacyVersion), or `classifyEra`.
//   A branch nested in the test of one already counted is the same decision and is not counted again.
// Not searched: src/engine/mcp/revisions/ (where the rules live), src/engine/mcp/versions.ts (the table of the
// revisions and the predicates that read it) and src/engine/client/ (the client is its own program with its
// own lanes).
//
// The two that remain route a request to its lane rather than decide a rule of a revision:
//   - src/engine/worker.ts: the POST goes to the lane the revisions' rule (src/engine/mcp/revisions/lane.ts) names;
//     choosing which code runs is the one decision the revision modules cannot make for the Worker.
//   - src/engine/http/legacy.ts: a GET or DELETE without a session from a 2026-07-28 client is 405 (that
//     revision has POST only): the session lane's door saying the request is not for it.
//
//   node scripts/checks/revision-branches.mjs [root]     (root defaults to the project)
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The most revision branches allowed outside the revision modules; lower it when one goes. */
export const ALLOWED = 2;

/** Folders under src/ that are not searched (see above). */
export const EXEMPT = ["engine/mcp/revisions/", "engine/mcp/versions.ts", "engine/client/"];

const MARKER_NAMES = new Set([
  "era",
  "legacy",
  "modern",
  "MODERN_VERSION",
  "LEGACY_VERSIONS",
  "PER_REQUEST_VERSIONS",
  "isModernVersion",
  "isLegacyVersion",
  "classifyEra",
]);
const isMarkerString = (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) || s === "legacy" || s === "modern";
const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
]);
const GUARDS = new Set([ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken]);

/** Whether an expression mentions a revision marker anywhere in it. */
function mentionsRevision(node) {
  let found = false;
  const visit = (n) => {
    if (found) return;
    if (ts.isStringLiteralLike(n) && isMarkerString(n.text)) found = true;
    else if (ts.isIdentifier(n) && MARKER_NAMES.has(n.text)) found = true;
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/** The expressions of a node that decide between paths, if it is a branching construct. */
function testsOf(node) {
  if (ts.isIfStatement(node) || ts.isWhileStatement(node) || ts.isDoStatement(node)) return [node.expression];
  if (ts.isConditionalExpression(node)) return [node.condition];
  if (ts.isForStatement(node)) return node.condition ? [node.condition] : [];
  if (ts.isSwitchStatement(node)) return [node.expression];
  if (ts.isCaseClause(node)) return [node.expression];
  if (ts.isElementAccessExpression(node)) return [node.argumentExpression];
  if (ts.isBinaryExpression(node)) {
    if (COMPARISONS.has(node.operatorToken.kind)) return [node];
    if (GUARDS.has(node.operatorToken.kind)) return [node.left];
  }
  return [];
}

/** The revision branches of one source text: `{ line, text }` for each. */
export function findBranches(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const counted = []; // [start, end) of the tests already counted
  const inCounted = (n) => counted.some(([s, e]) => n.getStart(source) >= s && n.getEnd() <= e);
  const visit = (node) => {
    for (const test of testsOf(node)) {
      if (inCounted(test) || !mentionsRevision(test)) continue;
      counted.push([test.getStart(source), test.getEnd()]);
      const { line } = source.getLineAndCharacterOfPosition(test.getStart(source));
      found.push({ line: line + 1, text: test.getText(source).replace(/\s+/g, " ").slice(0, 100) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** @returns {{ ok: boolean, message: string, count: number, files: number, branches: string[] }} */
export function checkRevisionBranches(root = ROOT, allowed = ALLOWED) {
  const src = path.join(root, "src");
  const files = readdirSync(src, { recursive: true })
    .map((f) => String(f).split(path.sep).join("/"))
    .filter((f) => /\.(m|c)?tsx?$/.test(f) && !f.endsWith(".d.ts") && !EXEMPT.some((e) => f.startsWith(e)))
    .sort();
  const branches = [];
  const holding = new Set();
  for (const file of files) {
    for (const b of findBranches(file, readFileSync(path.join(src, file), "utf8"))) {
      branches.push(`src/${file}:${b.line}  ${b.text}`);
      holding.add(file);
    }
  }
  const count = branches.length;
  const ok = count <= allowed;
  const lines = [
    `revision branches outside src/engine/mcp/revisions/ and src/engine/client/: ${count} in ${holding.size} file(s) (allowed: ${allowed})`,
  ];
  lines.push(...branches.map((b) => `    ${b}`));
  if (!ok)
    lines.push(
      `  ${count - allowed} more than allowed: ask the revision module (src/engine/mcp/revisions/) instead of branching on the revision`,
    );
  else if (count < allowed)
    lines.push(`  ${allowed - count} below the allowance: lower ALLOWED in scripts/checks/revision-branches.mjs to ${count}`);
  return { ok, message: lines.join("\n"), count, files: holding.size, branches };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = checkRevisionBranches(process.argv[2] ? path.resolve(process.argv[2]) : ROOT);
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}

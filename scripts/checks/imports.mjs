// Why: the layering check must see every edge TypeScript sees, including the ones a regex
// misses or a bundler drops: `import type`, `export … from`, `import x = require("…")`,
// `import("…")` calls and `import("…")` type expressions. So the TypeScript parser reads
// each file, and relative specifiers are resolved the way `moduleResolution: "bundler"` does.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * The module specifiers of one source text, with the 1-based line each appears on.
 * @returns {{ specifier: string, line: number }[]}
 */
export function readImports(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found = [];
  const add = (literal) => {
    if (!literal || !ts.isStringLiteralLike(literal)) return;
    const { line } = source.getLineAndCharacterOfPosition(literal.getStart(source));
    found.push({ specifier: literal.text, line: line + 1 });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const isFile = (p) => existsSync(p) && statSync(p).isFile();

/**
 * Resolves a relative specifier from `fromFile` like bundler resolution does for our sources:
 * `./x` → `x.ts`, `x.tsx`, `x.d.ts` or `x/index.ts`; `./x.js` → `x.ts`. Bare specifiers
 * (packages, `cloudflare:*`) are not part of the graph and give `null`; a relative one that
 * matches no file gives `undefined`.
 */
export function resolveRelative(fromFile, specifier) {
  if (!specifier.startsWith("./") && !specifier.startsWith("../") && specifier !== "." && specifier !== "..") return null;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const stem = base.replace(/\.(m|c)?js$/, "");
  const ext = (base.match(/\.(m|c)?js$/) ?? [""])[0].replace("js", "ts");
  const candidates = [
    ...(ext ? [stem + ext, stem + ".tsx"] : []),
    base,
    ...[".ts", ".tsx", ".d.ts"].map((e) => base + e),
    ...["index.ts", "index.tsx", "index.d.ts"].map((i) => path.join(base, i)),
  ];
  return candidates.find(isFile);
}

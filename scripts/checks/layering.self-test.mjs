// Why: a check that cannot fail proves nothing. This plants every kind of edge the layering
// check must see (type-only import, re-export, `import("…")` type, `./dir` → dir/index.ts,
// `./x.js` → x.ts) into a throwaway src/, closes a cycle through them, adds an object that
// imports the HTTP edge, and expects both to be reported; then a clean tree must pass.
import { fileURLToPath } from "node:url";
import { readImports } from "./imports.mjs";
import { checkLayering } from "./layering.mjs";
import { expectations, plantTree } from "./tree.mjs";

export function selfTestLayering() {
  const { expect, result } = expectations("layering");

  const forms = readImports(
    "forms.ts",
    [
      'import a from "./a";',
      'import type { B } from "./b";',
      'export * from "./c";',
      'export { d } from "./d";',
      'import e = require("./e");',
      'const f = await import("./f");',
      'type G = import("./g").G;',
      'let h: typeof import("./h");',
    ].join("\n"),
  );
  const seen = forms.map((f) => f.specifier).join(",");
  expect(seen === "./a,./b,./c,./d,./e,./f,./g,./h", `readImports sees every import form (saw ${seen})`);

  const faulty = checkLayering(
    plantTree("layering-faulty", {
      "src/a.ts": 'import type { B } from "./b";\nimport { dee } from "./d";\nexport type A = B | typeof dee;\n',
      "src/b.ts": 'export * from "./c.js";\nexport type B = string;\n',
      "src/c.ts": 'export type C = import("./a").A;\n',
      "src/d/index.ts": "export const dee = 1;\n",
      "src/engine/objects/store.ts": 'import { route } from "../http/route";\nexport const store = route;\n',
      "src/engine/http/route.ts": "export const route = 1;\n",
      "src/engine/mcp/core.ts": 'import { worker } from "../worker";\nexport const core = worker;\n',
      "src/engine/worker.ts": "export const worker = 1;\n",
    }),
  );
  const chain = faulty.cycles.map((c) => c.join(" ")).join("\n");
  expect(!faulty.ok, "the faulty tree fails");
  expect(
    /src\/a\.ts:1 src\/b\.ts:1 src\/c\.ts:1/.test(chain),
    `the cycle a → b → c → a is reported with its lines (got: ${chain || "none"})`,
  );
  expect(faulty.cycles.length === 1, `exactly one cycle (got ${faulty.cycles.length})`);
  expect(
    faulty.forbidden.some((f) => f.startsWith("src/engine/objects/store.ts:1 imports src/engine/http/route.ts")),
    "src/engine/objects → src/engine/http is reported",
  );
  expect(
    faulty.forbidden.some((f) => f.startsWith("src/engine/mcp/core.ts:1 imports src/engine/worker.ts")),
    "src/engine/mcp → outside src/engine/mcp is reported",
  );
  expect(faulty.unresolved.length === 0, `every planted import resolves (${faulty.unresolved.join("; ")})`);
  expect(/a\.ts:1 → src\/b\.ts:1 → src\/c\.ts:1 → src\/a\.ts/.test(faulty.message), "the message prints the cycle as a chain");

  const missing = checkLayering(plantTree("layering-missing", { "src/a.ts": 'import "./nowhere";\n' }));
  expect(!missing.ok && missing.unresolved.length === 1, "an import of no file is reported");

  const clean = checkLayering(
    plantTree("layering-clean", {
      "src/a.ts": 'import type { B } from "./b";\nexport type A = B;\n',
      "src/b.ts": 'export type B = import("./engine/http/route").Route;\n',
      "src/engine/http/route.ts": 'import type { Store } from "../objects/store";\nexport type Route = Store;\n',
      "src/engine/objects/store.ts": "export type Store = string;\n",
      "src/mcp.ts": 'export * from "./engine/mcp/core";\nexport { worker } from "./engine/worker";\n',
      "src/engine/mcp/core.ts": 'import { part } from "./part";\nexport const core = part;\n',
      "src/engine/mcp/part.ts": "export const part = 1;\n",
      "src/engine/worker.ts": 'import { core } from "./mcp/core";\nexport const worker = core;\n',
    }),
  );
  expect(clean.ok, `the clean tree passes (got: ${clean.message})`);

  return result();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = selfTestLayering();
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}

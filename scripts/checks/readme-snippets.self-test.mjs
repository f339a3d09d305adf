// Why: a check that cannot fail proves nothing. This plants a README with a block that compiles
// against a stand-in engine (through "./mcp", with valibot from the project), a block with a type
// error on a known line, and a ```typescript block that must be left alone; the check must name
// exactly the README line of the error. A docs/ page is checked the same way: its bad block must be
// named by the page and its line. Then the pages without the bad blocks must pass.
import { fileURLToPath } from "node:url";
import { checkReadmeSnippets } from "./readme-snippets.mjs";
import { expectations, plantTree } from "./tree.mjs";

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: "es2022",
    module: "es2022",
    moduleResolution: "bundler",
    strict: true,
    types: [],
    noEmit: true,
    skipLibCheck: true,
  },
  include: ["src"],
});
const ENGINE = "export const greet = (name: string): string => `Hello, ${name}`;\n";
const GOOD = [
  "```ts",
  'import * as v from "valibot";',
  'import { greet } from "./mcp";',
  'export const hello = greet(v.parse(v.string(), "you"));',
  "```",
];
const BAD = ["~~~ts", 'import { greet } from "./mcp";', "", 'export const oops: number = greet("you");', "~~~"]; // error on its 3rd line
const SKETCH = ["```typescript", "handler: (args, ctx) => ctx.whatever(args),", "```"];

export function selfTestReadmeSnippets() {
  const { expect, result } = expectations("README snippets");

  const readme = ["# Planted", "", ...GOOD, "", "Some text.", "", ...BAD, "", ...SKETCH, ""];
  const badLine = readme.indexOf("~~~ts") + 1 + 3; // 1-based fence line + its 3rd line
  const faulty = checkReadmeSnippets(
    plantTree("readme-faulty", { "README.md": readme.join("\n"), "tsconfig.json": TSCONFIG, "src/mcp.ts": ENGINE }),
  );
  expect(!faulty.ok, "the README with a bad block fails");
  expect(faulty.failures.length === 1, `exactly one error, from the bad block (got: ${faulty.message})`);
  expect(
    faulty.failures[0]?.line === badLine && faulty.failures[0]?.text.startsWith("TS2322"),
    `the error names README line ${badLine} with TS2322 (got: ${faulty.failures[0]?.line} ${faulty.failures[0]?.text})`,
  );
  expect(faulty.message.includes(`README.md:${badLine}:`), "the message carries the README line");

  const page = ["# Guide", "", ...GOOD, "", ...BAD, ""];
  const pageLine = page.indexOf("~~~ts") + 1 + 3;
  const inDocs = checkReadmeSnippets(
    plantTree("readme-docs-faulty", {
      "README.md": ["# Planted", ...GOOD].join("\n"),
      "docs/guide.md": page.join("\n"),
      "tsconfig.json": TSCONFIG,
      "src/mcp.ts": ENGINE,
    }),
  );
  expect(!inDocs.ok, "a docs/ page with a bad block fails");
  expect(
    inDocs.failures.length === 1 && inDocs.failures[0]?.file === "docs/guide.md" && inDocs.failures[0]?.line === pageLine,
    `the error names docs/guide.md line ${pageLine} (got: ${inDocs.message})`,
  );
  expect(inDocs.message.includes(`docs/guide.md:${pageLine}:`), "the message carries the page and line");

  const clean = checkReadmeSnippets(
    plantTree("readme-clean", {
      "README.md": ["# Planted", ...GOOD, ...SKETCH].join("\n"),
      "docs/guide.md": ["# Guide", ...GOOD].join("\n"),
      "tsconfig.json": TSCONFIG,
      "src/mcp.ts": ENGINE,
    }),
  );
  expect(clean.ok, `the README with good blocks only passes (got: ${clean.message})`);

  return result();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = selfTestReadmeSnippets();
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}

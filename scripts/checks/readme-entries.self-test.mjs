// Why: a check that cannot fail proves nothing. This plants a README with two Worker entries over a
// stand-in engine whose createMcpWorker gives two Durable Object classes that the planted
// wrangler.toml binds: the one that exports both must build, the one that forgets one must fail,
// named by its README line; an entry in a docs/ page that forgets one must fail too, named by the
// page and its line. A block that is no Worker entry is left alone.
import { fileURLToPath } from "node:url";
import { checkReadmeEntries } from "./readme-entries.mjs";
import { expectations, plantTree } from "./tree.mjs";

const ENGINE = `import { DurableObject } from "cloudflare:workers";
export function createMcpWorker(_app: unknown) {
  class First extends DurableObject {}
  class Second extends DurableObject {}
  return { First, Second, fetch: async () => new Response("ok") };
}
`;
const CONFIG = `name = "planted-entries"
main = "src/index.ts"
compatibility_date = "2026-11-01"

[[durable_objects.bindings]]
name = "FIRST"
class_name = "First"

[[durable_objects.bindings]]
name = "SECOND"
class_name = "Second"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["First", "Second"]
`;
const entry = (exported) => [
  "```ts",
  'import { createMcpWorker } from "./mcp";',
  'import app from "./server";',
  "const worker = createMcpWorker(app);",
  `export const { ${exported} } = worker;`,
  "export default { fetch: worker.fetch };",
  "```",
];
const NOT_AN_ENTRY = ["```ts", 'import { createMcpWorker } from "./mcp";', "export const make = createMcpWorker;", "```"];

export async function selfTestReadmeEntries() {
  const { expect, result } = expectations("README Worker entries");
  const readme = ["# Planted", "", ...entry("First, Second"), "", ...NOT_AN_ENTRY, "", ...entry("First"), ""];
  const badLine = readme.lastIndexOf("```ts") + 1;
  const page = ["# Mount", "", ...entry("Second"), ""];
  const tree = plantTree("readme-entries", {
    "README.md": readme.join("\n"),
    "docs/mount.md": page.join("\n"),
    "wrangler.toml": CONFIG,
    "src/mcp.ts": ENGINE,
    "src/server.ts": "export default {};\n",
  });
  const r = await checkReadmeEntries(tree);
  expect(!r.ok, "the README whose second entry forgets a Durable Object class fails");
  expect(r.failures.length === 2, `exactly two entries fail (got: ${r.message})`);
  expect(
    r.failures[0]?.file === "README.md" && r.failures[0]?.line === badLine,
    `the failure names README line ${badLine} (got: ${r.failures[0]?.file}:${r.failures[0]?.line})`,
  );
  expect(/Second/.test(r.failures[0]?.text ?? ""), `the failure names the class not exported (got: ${r.failures[0]?.text})`);
  expect(
    r.failures[1]?.file === "docs/mount.md" && r.failures[1]?.line === 3,
    `the second names docs/mount.md line 3 (got: ${r.failures[1]?.file}:${r.failures[1]?.line})`,
  );
  expect(/First/.test(r.failures[1]?.text ?? ""), `it names the class not exported (got: ${r.failures[1]?.text})`);
  return result();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await selfTestReadmeEntries();
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}

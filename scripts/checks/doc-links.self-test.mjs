// Why: a check that cannot fail proves nothing. This plants a README and two docs/ pages whose links
// reach a heading with inline code, a repeated heading (GitHub's -1), a file that is not Markdown, an
// anchor in the same page, and an external URL (left alone), and three broken ones: a missing page, a
// missing heading, and a link into docs/ written from docs/ as if it were the README's. The check
// must name exactly those three, each by page and line; a link inside a code block is not a link.
import { fileURLToPath } from "node:url";
import { checkDocLinks, slug } from "./doc-links.mjs";
import { expectations, plantTree } from "./tree.mjs";

const README = [
  "# Planted",
  "",
  "See [rotation](docs/security.md#rotating-mcp_state_secret), [the second](docs/security.md#limits-1),",
  "[the data](bench/data.txt), [the top](#planted), [the web](https://example.com/nowhere#none).",
  "",
  "```md",
  "[inside a block](docs/nowhere.md)",
  "```",
  "",
  "A [missing page](docs/gone.md).", // line 10: broken
  "",
].join("\n");
const SECURITY = [
  "# Security",
  "",
  "## Limits",
  "",
  "## Rotating `MCP_STATE_SECRET`",
  "",
  "## Limits",
  "",
  "Back to [the README](../README.md#planted) and [tasks](tasks.md#whose).",
  "A [missing heading](tasks.md#what-survives-what).", // line 10: broken
  "",
].join("\n");
const TASKS = ["# Tasks", "", "## Whose", "", "Written as the README would: [security](docs/security.md).", ""].join("\n"); // line 5: broken

export function selfTestDocLinks() {
  const { expect, result } = expectations("doc links");
  expect(
    slug("Rotating `MCP_STATE_SECRET`") === "rotating-mcp_state_secret",
    `slug keeps underscores, drops code ticks (got ${slug("Rotating `MCP_STATE_SECRET`")})`,
  );
  expect(
    slug("The 2025-11-25 lane: sessions, resumption") === "the-2025-11-25-lane-sessions-resumption",
    "slug drops punctuation, keeps hyphens",
  );

  const files = { "README.md": README, "docs/security.md": SECURITY, "docs/tasks.md": TASKS, "bench/data.txt": "1\n" };
  const faulty = checkDocLinks(plantTree("doc-links-faulty", files));
  const got = faulty.failures.map((f) => `${f.file}:${f.line}`).sort();
  expect(!faulty.ok, "the pages with broken links fail");
  expect(
    JSON.stringify(got) === JSON.stringify(["README.md:10", "docs/security.md:10", "docs/tasks.md:5"]),
    `exactly the three broken links, by page and line (got: ${faulty.message})`,
  );

  const mended = {
    ...files,
    "README.md": README.replace("docs/gone.md", "docs/tasks.md"),
    "docs/security.md": SECURITY.replace("tasks.md#what-survives-what", "tasks.md#whose"),
    "docs/tasks.md": TASKS.replace("(docs/security.md)", "(security.md)"),
  };
  const clean = checkDocLinks(plantTree("doc-links-clean", mended));
  expect(clean.ok, `the pages with every link mended pass (got: ${clean.message})`);
  return result();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = selfTestDocLinks();
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}

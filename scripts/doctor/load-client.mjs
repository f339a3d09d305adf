// Why: the doctor speaks MCP through the project's own client (src/engine/client/, TypeScript). Node 22 cannot
// import it as it is (extensionless imports), so it is bundled once per run with the esbuild that
// wrangler already installs, into a temporary file that is removed once loaded.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The client's public API: src/engine/client/index.ts and the skills module (imported on its own by apps), the directory rules, the output-fit and view-host rules the app check applies too. */
export async function loadClient() {
  const { build } = await import("esbuild");
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-doctor-"));
  const outfile = path.join(dir, "client.mjs");
  try {
    const entry = path.join(dir, "entry.ts");
    writeFileSync(
      entry,
      [
        `export * from ${JSON.stringify(path.join(ROOT, "src/engine/client/index.ts"))};`,
        `export * from ${JSON.stringify(path.join(ROOT, "src/engine/client/skills.ts"))};`,
        `export { directoryWarnings } from ${JSON.stringify(path.join(ROOT, "src/engine/mcp/directory.ts"))};`,
        `export { registryProblems } from ${JSON.stringify(path.join(ROOT, "src/engine/mcp/discovery.ts"))};`,
        `export { mostJsonChars, outputCannotFit } from ${JSON.stringify(path.join(ROOT, "src/engine/mcp/output-fit.ts"))};`,
        `export { DEFAULT_MAX_RESULT_CHARS } from ${JSON.stringify(path.join(ROOT, "src/engine/mcp/result-budget.ts"))};`,
        `export { claudeViewDomain, isClaudeDomain, viewMetaWarnings } from ${JSON.stringify(path.join(ROOT, "src/engine/mcp/view-hosts.ts"))};`,
      ].join("\n"),
    );
    await build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", target: "node22", outfile, logLevel: "error" });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

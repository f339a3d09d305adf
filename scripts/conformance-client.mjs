// Why: the official conformance suite drives a client by running a command with the server URL
// appended. This bundles the TypeScript conformance client (test/engine/conformance-client/) with the
// esbuild that wrangler ships, then runs it in this Node process.
//
//   npm run --silent conformance-client -- <server-url>     (MCP_CONFORMANCE_SCENARIO set by the suite)
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "test/.tmp/conformance-client");
mkdirSync(outdir, { recursive: true });
// One bundle per process: the suite runs scenarios in parallel, and each must not read another's half-written file.
const outfile = path.join(outdir, `main-${process.pid}.mjs`);
await build({
  entryPoints: [path.join(root, "test/engine/conformance-client/main.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  outfile,
  logLevel: "error",
  packages: "external",
});
process.on("exit", () => rmSync(outfile, { force: true }));
await import(pathToFileURL(outfile).href);

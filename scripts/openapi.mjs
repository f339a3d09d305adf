// Why: a large API's OpenAPI document (GitHub's is 13 MB) must not ride in the Worker. This writes its
// compact form (src/engine/openapi/compact.ts): per operation the tool's name, title, short
// description, method, path template, argument locations, flat input schema and scopes, which
// `fromOpenApi` takes as it takes the document. Internal `$ref`s are followed here; a document
// split over several files is bundled into one first (docs/openapi.md).
//
//   npm run openapi -- <document.json> --out src/<name>.openapi.json [--description-max 300] [--argument-description-max 160]
import { build } from "esbuild";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The engine's compaction, bundled for Node (the same code the Worker runs on a full document).
 * @returns {Promise<{ compactOpenApi: (doc: object, options?: object) => { operations: object[], notes: string[] } }>}
 */
export async function loadCompaction() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mcp-openapi-"));
  const outfile = path.join(dir, "compact.mjs");
  try {
    await build({
      entryPoints: [path.join(ROOT, "src/engine/openapi/compact.ts")],
      bundle: true,
      format: "esm",
      platform: "neutral",
      outfile,
      logLevel: "silent",
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes the compact form of the document at `input` to `out`; returns what it wrote, in figures.
 * @param {string} input
 * @param {string} out
 * @param {{ descriptionMax?: number, argumentDescriptionMax?: number }} [options]
 */
export async function writeCompact(input, out, options = {}) {
  const { compactOpenApi } = await loadCompaction();
  const source = readFileSync(input, "utf8");
  const compact = compactOpenApi(JSON.parse(source), options);
  const text = JSON.stringify(compact);
  writeFileSync(out, `${text}\n`);
  return {
    operations: compact.operations.length,
    notes: compact.notes,
    inBytes: Buffer.byteLength(source),
    outBytes: Buffer.byteLength(text),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: "string" },
      "description-max": { type: "string" },
      "argument-description-max": { type: "string" },
    },
  });
  const [input] = positionals;
  if (!input || !values.out) {
    console.error(
      "usage: npm run openapi -- <document.json> --out src/<name>.openapi.json [--description-max 300] [--argument-description-max 160]",
    );
    process.exit(2);
  }
  const number = (v) => (v === undefined ? undefined : Number(v));
  try {
    const r = await writeCompact(input, values.out, {
      descriptionMax: number(values["description-max"]),
      argumentDescriptionMax: number(values["argument-description-max"]),
    });
    const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
    console.log(`openapi: ${r.operations} operations from ${input} (${kib(r.inBytes)}) → ${values.out} (${kib(r.outBytes)})`);
    for (const n of r.notes) console.log(`  note: ${n}`);
  } catch (err) {
    console.error(`openapi: ${err?.message ?? err}`);
    process.exit(1);
  }
}

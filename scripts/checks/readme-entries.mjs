// Why: a block of the README or of a docs/*.md page that is a whole Worker entry (it calls createMcpWorker and has a default
// export) is what a reader pastes over src/index.ts, and typechecking it does not show that
// wrangler will run it: a Durable Object class that wrangler.toml binds and the entry forgets to
// export passes tsc and fails `wrangler dev` and deploy. So each such block is built the way a
// deploy builds it, `wrangler deploy --dry-run` (offline), with the project's wrangler.toml and the
// block as its `main`; "./mcp" and "./server" mean what they mean beside src/index.ts.
//
//   node scripts/checks/readme-entries.mjs [root]     (root defaults to the project)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../lib/procs.mjs";
import { docBlocks } from "./readme-blocks.mjs";
import { CHECKED_INFO } from "./readme-snippets.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Whether a checked block is a Worker entry. */
export const isWorkerEntry = (code) => /\bcreateMcpWorker\(/.test(code) && /^export default\b/m.test(code);

/** @returns {Promise<{ ok: boolean, message: string, failures: { file: string, line: number, text: string }[] }>} */
export async function checkReadmeEntries(root = ROOT) {
  const entries = docBlocks(root).filter((b) => b.info === CHECKED_INFO && isWorkerEntry(b.code));
  if (entries.length === 0) return { ok: true, message: "README and docs/ Worker entries: none", failures: [] };
  const dir = path.join(root, "test", ".tmp", "readme-entries");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, "src"), { recursive: true });
  const real = (to) =>
    path
      .relative(path.join(dir, "src"), path.join(root, "src", to))
      .split(path.sep)
      .join("/");
  writeFileSync(path.join(dir, "src", "mcp.ts"), `export * from "${real("mcp")}";\n`);
  writeFileSync(path.join(dir, "src", "server.ts"), `export { default } from "${real("server")}";\n`);
  // The config moves to test/.tmp: paths in it (the Static Assets directory) must still name the project's.
  const config = readFileSync(path.join(root, "wrangler.toml"), "utf8").replace(
    /^(directory\s*=\s*)"([^"]*)"/m,
    (_all, key, dirPath) => `${key}"${path.relative(dir, path.resolve(root, dirPath)).split(path.sep).join("/")}"`,
  );
  if (!/^main\s*=.*$/m.test(config))
    return { ok: false, message: "README Worker entries: wrangler.toml has no main line to point at a block", failures: [] };

  const failures = [];
  for (const [i, block] of entries.entries()) {
    writeFileSync(path.join(dir, "src", `entry-${i + 1}.ts`), block.code);
    const toml = path.join(dir, `wrangler-${i + 1}.toml`);
    writeFileSync(toml, config.replace(/^main\s*=.*$/m, `main = "src/entry-${i + 1}.ts"`));
    const r = await run("wrangler", ["deploy", "--dry-run", "--outdir", path.join(dir, `out-${i + 1}`), "--config", toml], {
      cwd: root,
      capture: true,
      timeoutMs: 120_000,
    });
    if (r.code !== 0 || r.timedOut) {
      const said =
        r.out
          .split("\n")
          .filter((l) => /ERROR|error|not exported|export/.test(l))
          .slice(0, 6)
          .join("\n    ") || r.out.slice(-1500);
      failures.push({ file: block.file, line: block.line, text: said });
    }
  }
  return failures.length
    ? {
        ok: false,
        failures,
        message: `README and docs/ Worker entries: ${failures.length} of ${entries.length} do not build with wrangler.toml:\n${failures.map((f) => `  ${f.file}:${f.line}:\n    ${f.text}`).join("\n")}`,
      }
    : {
        ok: true,
        failures,
        message: `README and docs/ Worker entries: all ${entries.length} build with wrangler.toml (wrangler deploy --dry-run)`,
      };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await checkReadmeEntries(path.resolve(process.argv[2] ?? ROOT));
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}

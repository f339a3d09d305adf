// Why: the scripts that load a fork's src/server.ts (scripts/check-app.mjs) are tried on a scratch fork
// whose engine and door are this repository's (symlinked), so a test writes only the app it needs.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** A scratch fork with `server` as its src/server.ts; returns its root and remove(). */
export function scratchFork(server) {
  const root = mkdtempSync(path.join(os.tmpdir(), "scratch-fork-"));
  mkdirSync(path.join(root, "src"));
  symlinkSync(path.join(ROOT, "src/engine"), path.join(root, "src/engine"));
  symlinkSync(path.join(ROOT, "src/mcp.ts"), path.join(root, "src/mcp.ts"));
  symlinkSync(path.join(ROOT, "node_modules"), path.join(root, "node_modules"));
  writeFileSync(path.join(root, "src/server.ts"), server);
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

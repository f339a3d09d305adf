// Why: each check proves it can fail by running against a tiny planted tree. The trees live in
// test/.tmp/checks/ (git-ignored) and are rebuilt from scratch every run, so no state leaks
// from one run into the next. tsconfig.json excludes test/.tmp: the planted faults are on purpose.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Writes `files` ({ "relative/path": text }) into a fresh test/.tmp/checks/<name>; returns its path. */
export function plantTree(name, files) {
  const dir = path.join(ROOT, "test", ".tmp", "checks", name);
  rmSync(dir, { recursive: true, force: true });
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** Collects failed expectations so a self-test reports all of them at once. */
export function expectations(name) {
  const failed = [];
  return {
    expect(cond, what) {
      if (!cond) failed.push(what);
    },
    result() {
      return failed.length
        ? { ok: false, message: `${name} self-test: the check did not behave as planted:\n${failed.map((f) => `  - ${f}`).join("\n")}` }
        : { ok: true, message: `${name} self-test: every planted fault caught` };
    },
  };
}

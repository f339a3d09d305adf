// Why: a test that sleeps a fixed time and then asserts that nothing happened passes on a slow machine
// and on a broken engine alike, and a real-clock wait for an alarm or a TTL makes the suite slower for
// nothing (issue 51, item 10). The engine's workerd tests wait for a state instead (until() in
// test/engine/helpers/until.ts, a witness that must receive, the object's own rows, its alarm run with
// runDurableObjectAlarm). This check counts the fixed waits (`sleep(`, `setTimeout(`) in
// test/engine/integration/ and test/engine/helpers/ and fails on any beyond the allow-list below, each
// entry with the reason its waits stay.
//
//   node scripts/checks/test-waits.mjs [root]
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FOLDERS = ["test/engine/integration", "test/engine/helpers"];
const WAIT = /\b(?:sleep|setTimeout)\(/;

/** @typedef {Record<string, { count: number, why: string }>} AllowList File (from the root) → the fixed waits it may hold, and why. */

/** @type {AllowList} */
export const ALLOWED = {
  "test/engine/integration/client-hostile.test.ts": {
    count: 1,
    why: "the scripted server breaks its stream 5 ms in: the fault under test",
  },
  "test/engine/integration/code-mode.test.ts": { count: 1, why: "inside the sandboxed script under test (one that never ends)" },
  "test/engine/integration/fuzz.test.ts": { count: 1, why: "bounds how long one SSE answer is read; nothing is asserted absent after it" },
  "test/engine/integration/hostile-input.test.ts": { count: 1, why: "listenSoon retries while a closed stream's slot frees (a poll)" },
  "test/engine/integration/legacy-end-race.test.ts": {
    count: 1,
    why: "staggers racing requests by a tick: the interleaving is under test",
  },
  "test/engine/helpers/limiter-window.ts": {
    count: 1,
    why: "the Rate Limiting binding's window is the runtime's wall clock, which no test drives",
  },
};

/** Every line with a fixed wait, by file. */
function waitsIn(root) {
  const found = new Map();
  for (const folder of FOLDERS) {
    const dir = path.join(root, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (!/\.(ts|mjs)$/.test(name)) continue;
      const file = `${folder}/${name}`;
      const lines = readFileSync(path.join(root, file), "utf8").split("\n");
      const at = lines.flatMap((line, i) => (WAIT.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [i + 1] : []));
      if (at.length) found.set(file, at);
    }
  }
  return found;
}

/**
 * @param {string} [root]
 * @param {AllowList} [allowed]
 * @returns {{ ok: boolean, message: string }}
 */
export function checkTestWaits(root = ROOT, allowed = ALLOWED) {
  const found = waitsIn(root);
  const over = [...found].filter(([file, at]) => at.length > (allowed[file]?.count ?? 0));
  const total = [...found.values()].reduce((n, at) => n + at.length, 0);
  const lines = [`test waits: ${total} fixed waits in ${found.size} files of ${FOLDERS.join(", ")}, all allowed`];
  if (over.length) {
    lines[0] = `test waits: ${over.length} files hold fixed waits beyond the allow-list`;
    for (const [file, at] of over) lines.push(`  ${file}:${at.join(",")}: ${at.length} (allowed ${allowed[file]?.count ?? 0})`);
    lines.push(
      "  wait for a state instead (until() in test/engine/helpers/until.ts, a witness that must receive, the object's rows, its alarm run now),",
      "  or, where the wait is the thing under test, allow it in scripts/checks/test-waits.mjs with the reason",
    );
  }
  return { ok: over.length === 0, message: lines.join("\n") };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = checkTestWaits(process.argv[2] ?? ROOT);
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}

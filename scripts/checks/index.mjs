// Why: the project's static checks, in the order `npm run test:all` runs them right after the typecheck
// (`npm test` runs the layering and the types ones).
// Each one first runs its self-test (it must catch faults planted in a throwaway tree), so a
// check that has silently stopped being able to fail cannot report the project clean.
//
//   npm run checks     runs all of them and reports every finding (npm test stops at the first)
import { fileURLToPath } from "node:url";
import { checkDocLinks } from "./doc-links.mjs";
import { selfTestDocLinks } from "./doc-links.self-test.mjs";
import { checkFigures } from "./figures.mjs";
import { selfTestFigures } from "./figures.self-test.mjs";
import { checkLayering } from "./layering.mjs";
import { selfTestLayering } from "./layering.self-test.mjs";
import { checkReadmeEntries } from "./readme-entries.mjs";
import { selfTestReadmeEntries } from "./readme-entries.self-test.mjs";
import { checkReadmeSnippets } from "./readme-snippets.mjs";
import { selfTestReadmeSnippets } from "./readme-snippets.self-test.mjs";
import { checkRevisionBranches } from "./revision-branches.mjs";
import { selfTestRevisionBranches } from "./revision-branches.self-test.mjs";
import { checkSourceMap } from "./source-map.mjs";
import { selfTestSourceMap } from "./source-map.self-test.mjs";
import { checkTestWaits } from "./test-waits.mjs";
import { selfTestTestWaits } from "./test-waits.self-test.mjs";
import { checkTypesFresh } from "./types-fresh.mjs";
import { selfTestTypesFresh } from "./types-fresh.self-test.mjs";
import { checkUnusedExports } from "./unused-exports.mjs";
import { selfTestUnusedExports } from "./unused-exports.self-test.mjs";

/**
 * Each check: `id`, `name`, its self-test and the check; `inputs`, where given, are every file and
 * folder (relative to the project) the check and its self-test read, so `npm test` may skip a check
 * that passed on exactly these contents (scripts/test-steps.mjs); `npm run checks` and
 * `npm run test:all` always run every check.
 */
export const CHECKS = [
  {
    id: "layering",
    name: "layering of src/ (no import cycles, no forbidden directions)",
    selfTest: selfTestLayering,
    check: checkLayering,
    inputs: [
      "src",
      "scripts/checks/layering.mjs",
      "scripts/checks/layering.self-test.mjs",
      "scripts/checks/imports.mjs",
      "node_modules/typescript/package.json",
    ],
  },
  {
    id: "revisions",
    name: "revision branches outside the revision modules (no more than allowed)",
    selfTest: selfTestRevisionBranches,
    check: checkRevisionBranches,
  },
  { id: "readme", name: "README and docs/*.md ```ts blocks typecheck", selfTest: selfTestReadmeSnippets, check: checkReadmeSnippets },
  {
    id: "readme-entries",
    name: "README and docs/*.md Worker entries build with wrangler.toml (wrangler deploy --dry-run)",
    selfTest: selfTestReadmeEntries,
    check: checkReadmeEntries,
  },
  {
    id: "doc-links",
    name: "links between README and docs/*.md (files and #anchors) resolve",
    selfTest: selfTestDocLinks,
    check: checkDocLinks,
  },
  {
    id: "figures",
    name: "measured figures the README and docs/ quote match docs/figures.md",
    selfTest: selfTestFigures,
    check: checkFigures,
  },
  {
    id: "source-map",
    name: "docs/architecture.md's source map names every folder and root file of src/engine/",
    selfTest: selfTestSourceMap,
    check: checkSourceMap,
  },
  {
    id: "test-waits",
    name: "no fixed wait in the engine's workerd tests beyond the allow-list (wait for a state instead)",
    selfTest: selfTestTestWaits,
    check: checkTestWaits,
  },
  {
    id: "types",
    name: "generated Env types are fresh (worker-configuration.d.ts)",
    selfTest: selfTestTypesFresh,
    check: checkTypesFresh,
    // What `wrangler types` reads (the "types" script names the env file) and what the check is made of.
    inputs: [
      "package.json",
      "wrangler.toml",
      "wrangler.json",
      "wrangler.jsonc",
      "worker-configuration.d.ts",
      "scripts/checks/no-secrets.env",
      "scripts/checks/types-fresh.mjs",
      "scripts/checks/types-fresh.self-test.mjs",
      "node_modules/wrangler/package.json",
    ],
  },
  {
    id: "exports",
    name: "no export under src/ that no other file uses, apart from the public ones",
    selfTest: selfTestUnusedExports,
    check: checkUnusedExports,
  },
];

const indent = (text) => text.replace(/^/gm, "  ");

/** Runs one check after its self-test; prints both reports; true when the project passes. */
export async function runCheck({ selfTest, check }) {
  const proof = await selfTest();
  console.log(indent(proof.message));
  if (!proof.ok) return false;
  const verdict = await check();
  console.log(indent(verdict.message));
  return verdict.ok;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let failed = 0;
  for (const entry of CHECKS) {
    console.log(`\n▶ ${entry.name}`);
    const t0 = Date.now();
    const ok = await runCheck(entry);
    console.log(`  ${ok ? "passed" : "FAILED"} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (!ok) failed++;
  }
  console.log(failed ? `\nchecks: ${failed} of ${CHECKS.length} failed` : `\nchecks: all ${CHECKS.length} passed`);
  process.exit(failed ? 1 : 0);
}

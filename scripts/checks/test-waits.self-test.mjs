// Why: a check that cannot fail proves nothing. This plants a test that sleeps before asserting an
// absence and a helper with a setTimeout, neither allowed; the check must name both, pass the same tree
// once they are allowed, and pass a wait that is only mentioned in a comment.
import { checkTestWaits } from "./test-waits.mjs";
import { expectations, plantTree } from "./tree.mjs";

const SLEEPS = 'it("nothing", async () => {\n  await sleep(200);\n  expect(hook.deliveries).toHaveLength(0);\n});\n';
const HELPER = "export const later = () => new Promise((r) => setTimeout(r, 100));\n";
const COMMENTED = "// no sleep(100) here: until(() => …) instead\nexport const x = 1;\n";

export async function selfTestTestWaits() {
  const { expect, result } = expectations("test waits");
  const tree = plantTree("test-waits", {
    "test/engine/integration/quiet.test.ts": SLEEPS,
    "test/engine/helpers/later.ts": HELPER,
    "test/engine/helpers/commented.ts": COMMENTED,
  });
  const faulty = checkTestWaits(tree, {});
  expect(!faulty.ok, "an unlisted sleep in a test fails");
  expect(/quiet\.test\.ts:2/.test(faulty.message), `the test's sleep is named with its line (got: ${faulty.message})`);
  expect(/later\.ts:1/.test(faulty.message), `the helper's setTimeout is named (got: ${faulty.message})`);
  expect(!/commented\.ts/.test(faulty.message), `a wait named in a comment is not one (got: ${faulty.message})`);
  const allowed = checkTestWaits(tree, {
    "test/engine/integration/quiet.test.ts": { count: 1, why: "planted" },
    "test/engine/helpers/later.ts": { count: 1, why: "planted" },
  });
  expect(allowed.ok, `waits within the allow-list pass (got: ${allowed.message})`);
  return result();
}

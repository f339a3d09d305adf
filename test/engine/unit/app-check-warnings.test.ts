/**
 * `npm test` and `npm run check:app` load the fork's src/server.ts in Node
 * (scripts/check-app.mjs): a tool that Claude's or ChatGPT's directory would refuse is a warning that
 * names the tool and the rule, and never a problem (the check passes).
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { checkAppDefinitions } from "../../../scripts/check-app.mjs";
// @ts-expect-error: a plain .mjs helper without type declarations
import { scratchFork } from "./scratch-fork.mjs";

describe("the app check's directory warnings, as npm test runs them", () => {
  it("names the tool and the rule, and passes the app", async () => {
    const fork = scratchFork(`import { defineApp, defineTool } from "./mcp";
export default defineApp({ info: { name: "scratch", version: "1" }, tools: [defineTool({ name: "save_note", handler: () => "ok" })] });
`);
    try {
      const { loaded, problems, warnings, why } = await checkAppDefinitions(fork.root);
      expect(loaded, why).toBe(true);
      expect(problems).toEqual([]);
      expect(warnings).toEqual([
        expect.stringMatching(/^Tool "save_note" has no title: Claude's and ChatGPT's directories/),
        expect.stringMatching(
          /^Tool "save_note" does not set annotations\.readOnlyHint, annotations\.destructiveHint, annotations\.openWorldHint/,
        ),
      ]);
    } finally {
      fork.remove();
    }
  });
});

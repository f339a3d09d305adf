/**
 * What a fork's config must set up for the engine (scripts/lib/engine-setup.mjs): a feature's object
 * and the engine's compatibility flags live in wrangler.toml, which no upgrade reaches, so `npm test`
 * (the app check), `npm run dev` and `npm run deploy` name what is missing. The app check reads the
 * file without wrangler; this holds that reading to what wrangler would read.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { engineSetupProblems, scanWranglerToml } from "../../../scripts/lib/engine-setup.mjs";

const TOML = `
name = "reading-list"
main = "src/index.ts"
compatibility_flags = [
  "enable_request_signal", # cancellation
]

[[durable_objects.bindings]]
name = "MCP_HUB"
class_name = "McpHub"

[[durable_objects.bindings]]
name = 'MCP_USER'
class_name = "McpUser"

[env.staging]
compatibility_flags = ["global_fetch_strictly_public"]

[[env.staging.durable_objects.bindings]]
name = "MCP_EVENTS"
class_name = "McpEvents"
`;

describe("the engine's setup in a fork's wrangler.toml", () => {
  it("reads the top-level flags and object bindings (a multi-line array, comments, either quote; not an environment's)", () => {
    expect(scanWranglerToml(TOML)).toEqual({
      compatibility_flags: ["enable_request_signal"],
      durable_objects: {
        bindings: [
          { name: "MCP_HUB", class_name: "McpHub" },
          { name: "MCP_USER", class_name: "McpUser" },
        ],
      },
    });
  });

  it("names the object of each feature the app uses and the config lacks, and each missing flag", () => {
    const { bindings, flags } = engineSetupProblems(
      { events: true, userState: true, tasks: false },
      scanWranglerToml(TOML),
      "wrangler.toml",
    );
    expect(bindings.map((b: { problem: string }) => b.problem)).toEqual([
      "the app serves events([...]), but wrangler.toml binds no MCP_EVENTS: its calls would fail.",
    ]);
    expect(flags.map((f: { problem: string }) => f.problem)).toEqual([expect.stringContaining('lack "global_fetch_strictly_public"')]);
  });

  it("the template's own wrangler.toml sets up everything its example app uses", () => {
    const config = scanWranglerToml(readFileSync("wrangler.toml", "utf8"));
    expect(engineSetupProblems({ tasks: true, events: false, userState: false }, config, "wrangler.toml")).toEqual({
      bindings: [],
      flags: [],
    });
  });
});

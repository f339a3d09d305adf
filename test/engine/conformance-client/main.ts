/**
 * The conformance client: the official suite starts it once per scenario
 * with the server URL as the last argument and the scenario in
 * MCP_CONFORMANCE_SCENARIO (its data, if any, in MCP_CONFORMANCE_CONTEXT,
 * the revision under test in MCP_CONFORMANCE_PROTOCOL_VERSION). Exit code 0
 * means the client did what the scenario asked without an error.
 */
import type { Protocol } from "../../../src/engine/client";
import { scenarioFor } from "./scenarios";

const name = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const url = process.argv[process.argv.length - 1] ?? "";
const scenario = scenarioFor(name);
if (!scenario || !/^https?:/.test(url)) {
  console.error(`usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance-client <server-url> (unknown scenario "${name}")`);
  process.exit(1);
}
// The suite names the revision it tests; the client speaks exactly that one (auto selection is tested against the engine).
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION as Protocol | undefined;
try {
  await scenario!(url, {
    clientInfo: { name: "mcp-worker-template-conformance", version: "1.0.0" },
    ...(version ? { protocol: version } : {}),
  });
  process.exit(0);
} catch (err) {
  console.error(err);
  process.exit(1);
}

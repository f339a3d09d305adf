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
// The suite runs every scenario of a requirement set at once, each its own process, so on a small machine a
// client can be off the CPU for seconds. Past a scenario server's keep-alive (Node's 5 s) its next POST can go
// out on the socket the server just closed and fail ("other side closed", ECONNRESET; a POST is rightly not
// resent): 1 run in 4 with four busy loops beside it, 0 in 4 with this.
// One connection per request keeps a scheduling stall from failing a scenario; the protocol is unchanged.
const platformFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  headers.set("Connection", "close");
  return platformFetch(input, { ...init, headers });
};

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

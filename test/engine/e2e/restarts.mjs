// Why: some promises are about what outlives the server (a task, a notification). A drill runs
// against one `wrangler dev` after another on the same state directory and the same
// MCP_STATE_SECRET, as one deployment keeps them across a restart, and kills each whole process
// group as a crash or a deploy would.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createChecks } from "./checks.mjs";
import { atExit } from "../../../scripts/lib/procs.mjs";
import { startWrangler } from "./server.mjs";

/**
 * Runs `drill({ check, url, restart })`: `url()` is the current server's /mcp, `restart()` kills it
 * and starts the next on the same state. Answers the checks' counts; a server that does not start
 * counts as one failure, and under E2E_VERBOSE a failed drill prints the last server's log.
 * @param {string} name  the checks' prefix
 * @param {{config: string, vars?: Record<string, string>}} app
 * @param {(d: {check: Function, url: () => string, restart: () => Promise<void>}) => Promise<void>} drill
 * @returns {Promise<{passed: number, failed: number}>}
 */
export async function acrossRestarts(name, { config, vars = {} }, drill) {
  const { check, counts } = createChecks(name);
  const persistTo = mkdtempSync(path.join(os.tmpdir(), "mcp-e2e-restart-state-"));
  const unhook = atExit(() => rmSync(persistTo, { recursive: true, force: true }));
  // One secret for every server of the drill.
  const allVars = { MCP_STATE_SECRET: randomBytes(32).toString("hex"), ...vars };
  const start = () => startWrangler({ config, persistTo, vars: allVars });
  let server;
  try {
    server = await start();
    console.log(`  first server at ${server.url} (state in ${persistTo})`);
    await drill({
      check,
      url: () => server.url,
      restart: async () => {
        await server.stop();
        server = undefined;
        server = await start();
        console.log(`  next server at ${server.url}`);
      },
    });
  } catch (err) {
    console.log(`  ✗ ${name}: a server did not start: ${err.message}`);
    return { passed: counts().passed, failed: counts().failed + 1 };
  } finally {
    if (server) {
      if (counts().failed && process.env.E2E_VERBOSE) console.log(server.log().slice(-4000));
      await server.stop();
    }
    rmSync(persistTo, { recursive: true, force: true });
    unhook();
  }
  return counts();
}

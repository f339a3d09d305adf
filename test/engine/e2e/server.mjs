// Why: the e2e steps need a real `wrangler dev` (workerd, Durable Objects, real HTTP)
// rather than the vitest pool. This starts one on 127.0.0.1 with free ports, a random
// MCP_STATE_SECRET (there is no .dev.vars in CI) and throwaway state (or, with persistTo,
// state the caller keeps across servers), waits (bounded) until it answers, and returns
// { url, stop() } that kills the whole process group.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { atExit, sleep, spawnGroup, stopGroup } from "../../../scripts/lib/procs.mjs";

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/**
 * @param {{config?: string, readyTimeoutMs?: number, vars?: Record<string,string>, logLevel?: string, persistTo?: string}} opts
 *   logLevel: wrangler's --log-level ("info" by default; the benchmarks pass "warn" so that
 *   wrangler does not print a line per request while it is being measured).
 *   persistTo: a state directory the caller owns (kept on stop), so that a second server
 *   picks up the first one's Durable Objects; pass the same MCP_STATE_SECRET in vars too.
 * @returns {Promise<{url: string, origin: string, log: () => string, stop: () => Promise<void>}>}
 */
export async function startWrangler(opts = {}) {
  for (let attempt = 1; ; attempt++) {
    const started = await startOnce(opts);
    if (started !== PORT_TAKEN) return started;
    if (attempt === 3) throw new Error(`wrangler dev (${opts.config ?? "wrangler.toml"}): its port was taken by another listener 3 times`);
  }
}

/**
 * What startOnce returns when another listener answered on the port it chose: freePort's port is free
 * only until it returns, and Miniflare binds its loopback server (Node, a port the kernel picks) while
 * wrangler starts. That server answers a request without its secret with a bare 403 "Forbidden", which
 * once made a CI run's spans step talk to it instead of the Worker.
 */
const PORT_TAKEN = Symbol("port taken");

/** @param {Parameters<typeof startWrangler>[0]} opts */
async function startOnce({ config = "wrangler.toml", readyTimeoutMs = 60_000, vars = {}, logLevel = "info", persistTo } = {}) {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const persist = persistTo ?? mkdtempSync(path.join(os.tmpdir(), "mcp-e2e-state-"));
  const removePersist = () => persistTo === undefined && rmSync(persist, { recursive: true, force: true });
  const unhook = atExit(removePersist);
  const allVars = { MCP_STATE_SECRET: randomBytes(32).toString("hex"), ...vars };
  const args = [
    "dev",
    "--config",
    config,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-ip",
    "127.0.0.1",
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    persist,
    "--show-interactive-dev-session=false",
    "--log-level",
    logLevel,
    ...Object.entries(allVars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
  ];
  const child = spawnGroup("wrangler", args);
  let log = "";
  const append = (d) => {
    log += d;
    if (log.length > 200_000) log = log.slice(-100_000); // keep memory bounded
  };
  child.stdout.on("data", append);
  child.stderr.on("data", append);

  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopGroup(child);
    removePersist();
    unhook();
  };

  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    let res;
    try {
      res = await fetch(origin + "/", { signal: AbortSignal.timeout(2000) }); // any HTTP answer = ready
    } catch {
      await sleep(250);
      continue;
    }
    if (res.status === 403 && (await res.text()) === "Forbidden") {
      await stop();
      return PORT_TAKEN;
    }
    return { url: `${origin}/mcp`, origin, log: () => log, stop };
  }
  await stop();
  const why = child.exitCode !== null ? `exited with code ${child.exitCode}` : `not ready after ${readyTimeoutMs} ms`;
  throw new Error(`wrangler dev (${config}) ${why}. Last output:\n${log.slice(-4000).replace(/\x1b\[[0-9;]*m/g, "")}`);
}

/**
 * Runs `fn(url)` against the engine test app (test/engine/app) under its own `wrangler dev`, and stops
 * it after; a server that does not start is one failed check. `fn` returns e2e counts.
 */
export async function withEngineApp(fn) {
  let server;
  try {
    server = await startWrangler({ config: "test/engine/app/wrangler.toml" });
  } catch (err) {
    console.log(`  ✗ could not start the engine test app: ${err.message}`);
    return { passed: 0, failed: 1 };
  }
  console.log(`  engine test app at ${server.url}`);
  try {
    const r = await fn(server.url);
    if (r?.failed && process.env.E2E_VERBOSE) console.log(server.log().slice(-4000));
    return r;
  } finally {
    await server.stop();
  }
}

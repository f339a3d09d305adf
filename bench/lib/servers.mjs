// Why: the bench compares this template with a bare Worker (the floor) and with the servers
// a user would pick instead, each built from its own published packages. It never serves
// the example app a fork replaces: "this template" is the engine's own test app.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { ROOT, run } from "../../scripts/lib/procs.mjs";

export const SERVERS = {
  engine: { name: "this template (engine test app)", config: "test/engine/app/wrangler.toml" },
  floor: { name: "floor (bare Worker, fixed JSON)", config: "bench/floor/wrangler.toml" },
  official: {
    name: "official SDK v2 `createMcpHandler`",
    config: "bench/peers/official/wrangler.toml",
    dir: "bench/peers/official",
    pkg: "@modelcontextprotocol/server",
  },
  agents: { name: "agents `createMcpHandler`", config: "bench/peers/agents/wrangler.toml", dir: "bench/peers/agents", pkg: "agents" },
};

/**
 * A throughput row under wrangler dev only (not built or sized with the others): the floor plus what
 * every request of a default engine app pays locally apart from the engine (the simulated asset
 * router and rate limit, one log line through wrangler's inspector).
 */
export const FLOOR_PLATFORM = "bench/floor-platform/wrangler.toml";

/**
 * Sized only: the peers' one tool (convert_temperature) served by the engine, so the bundle
 * comparison is between the same app on each (see bench/same-tool).
 */
export const SAME_TOOL = "bench/same-tool/wrangler.toml";

/** The replay fixture: the engine around a tool that writes N log events (see bench/fixture). */
export const REPLAY_FIXTURE = "bench/fixture/wrangler.toml";

export const PEERS = ["official", "agents"];

/**
 * Installs each peer from its own lockfile (skipped when its install is newer than its
 * package.json and lockfile), and returns the installed version of each peer's package.
 * @param {(line: string) => void} [onProgress]
 */
export async function installPeers(onProgress = () => {}) {
  const versions = {};
  for (const key of PEERS) {
    const { dir, pkg } = SERVERS[key];
    const abs = path.join(ROOT, dir);
    const marker = path.join(abs, "node_modules", ".package-lock.json");
    const changed = Math.max(...["package.json", "package-lock.json"].map((f) => statSync(path.join(abs, f)).mtimeMs));
    if (!existsSync(marker) || statSync(marker).mtimeMs < changed) {
      onProgress(`npm ci in ${dir}`);
      const r = await run("npm", ["ci", "--prefix", abs, "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel", "error"], {
        timeoutMs: 300_000,
        capture: true,
      });
      if (r.code !== 0) throw new Error(`npm ci in ${dir} failed:\n${r.out.slice(-2000)}`);
    }
    versions[key] = JSON.parse(readFileSync(path.join(abs, "node_modules", pkg, "package.json"), "utf8")).version;
  }
  return versions;
}

/** compatibility_date and compatibility_flags of a wrangler.toml (the profiler needs them). */
export function compatibilityOf(config) {
  const toml = readFileSync(path.join(ROOT, config), "utf8");
  return {
    compatibilityDate: /compatibility_date\s*=\s*"([^"]+)"/.exec(toml)?.[1],
    compatibilityFlags: JSON.parse(/compatibility_flags\s*=\s*(\[[^\]]*\])/.exec(toml)?.[1] ?? "[]"),
  };
}

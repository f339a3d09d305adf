// Why: `npm run dev` is a fork's first command, and three things about it used to cost a new user
// time. A definition mistake in src/server.ts (two tools with one name) started a server whose every
// request failed with "Internal error", the cause only in the terminal: now it does not start and
// the mistakes are named. A D1 database's tables were never created: the migrations of every D1
// binding of the config are applied locally first. And stopping `npm run dev` by its PID left
// wrangler and workerd serving the port, because npm's `sh -c` dies on the signal without passing
// it on: this script passes it on, and stops wrangler when its own parent is gone.
//
//   node scripts/dev.mjs [--config <wrangler config>] [--env <name>] [<wrangler dev flags>]
//   npm run dev -- --port 9000 --ip 127.0.0.1
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkAppDefinitions } from "./check-app.mjs";
import { devTokenKey } from "./lib/dev-token.mjs";
import { ensureDevVars } from "./dev-vars.mjs";
import { applyLocalMigrations } from "./d1-migrations.mjs";
import { isOAuthEntry } from "./deploy-checks.mjs";
import { engineSetupProblems, setupLine } from "./lib/engine-setup.mjs";
import { missingBindings } from "./lib/entry-bindings.mjs";
import { flagValue, readWranglerConfig, wranglerTarget } from "./lib/wrangler-config.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

// The config and environment wrangler dev will use (scripts/lib/wrangler-config.mjs), as npm run deploy reads them.
const target = wranglerTarget(ROOT, args);

ensureDevVars(path.dirname(path.resolve(ROOT, target.configFile)));

const app = await checkAppDefinitions(ROOT);
if (!app.loaded) console.warn(`app check: skipped in Node (${app.why}); npm test checks the app inside workerd`);
else if (app.problems.length) {
  const lines = app.problems.map((p) => `  ✗ ${p}`).join("\n");
  console.error(
    `\nnpm run dev: not started. src/server.ts has ${app.problems.length} definition ${app.problems.length === 1 ? "mistake" : "mistakes"}:\n${lines}\n\nEvery request would fail until they are fixed. \`npm run check:app\` checks again.\n`,
  );
  process.exit(1);
}

// What the app turns on against what the config sets up: a feature's object, the engine's flags.
const config = await readWranglerConfig(ROOT, target);
const setup = engineSetupProblems(app.loaded ? app.features : undefined, config, target.configFile);
if (setup.bindings.length || setup.flags.length)
  console.warn(`\n!!! ${[...setup.bindings, ...setup.flags].map(setupLine).join("\n!!! ")}\n`);

// The OAuth entry serves the same app: a binding of wrangler.toml it lacks fails that app's tools there.
if (path.resolve(ROOT, target.configFile) !== path.resolve(ROOT, "wrangler.toml")) {
  if (isOAuthEntry(config)) {
    const lacking = missingBindings(
      await readWranglerConfig(ROOT, { configFile: "wrangler.toml", env: target.env }),
      config,
      "wrangler.toml",
      target.configFile,
    );
    if (lacking.length)
      console.warn(
        `\n!!! ${target.configFile} (the OAuth entry) lacks what the app reads through wrangler.toml; those tools fail with an internal error here:\n${lacking.map((l) => `!!!   ${l}`).join("\n")}\n`,
      );
  }
}

if (!(await applyLocalMigrations(ROOT, target, flagValue(args, "--persist-to")))) process.exit(1);

// MCP_DEV: errors carry their details while developing (src/engine/config.ts says which); never deployed.
// MCP_DEV_TOKEN_KEY: the key of `npm run token`'s tokens (scripts/lib/dev-token.mjs), accepted here only.
const wrangler = spawn("wrangler", ["dev", ...args, "--var", "MCP_DEV:on", "--var", `MCP_DEV_TOKEN_KEY:${devTokenKey(ROOT)}`], {
  cwd: ROOT,
  stdio: "inherit",
});
let stopping = false;
const stop = (signal) => {
  if (stopping) return;
  stopping = true;
  wrangler.kill(signal);
  // wrangler stops workerd on SIGTERM/SIGINT; one that hangs is killed after a grace period.
  setTimeout(() => wrangler.kill("SIGKILL"), 10_000).unref();
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stop(signal));
// npm runs this under `sh -c`, which dies on a signal sent to npm without passing it on: then this
// process is re-parented, and that is the sign to stop.
const parent = process.ppid;
const orphaned = setInterval(() => process.ppid !== parent && stop("SIGTERM"), 250);
wrangler.on("exit", (code, signal) => {
  clearInterval(orphaned);
  process.exit(code ?? (signal === "SIGINT" ? 130 : signal ? 143 : 1));
});

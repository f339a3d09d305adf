// Why: every e2e helper spawns child processes (tsc, vitest, wrangler, conformance).
// This module is the single place that spawns them in their own process group, bounds
// them in time, and guarantees none survives us: on normal exit, on failure, on SIGINT/SIGTERM.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(ROOT, "node_modules", ".bin");

/** CI-friendly environment; node_modules/.bin first so `node` is the pinned Node 22. */
export const CHILD_ENV = {
  ...process.env,
  PATH: `${BIN}${path.delimiter}${process.env.PATH ?? ""}`,
  CI: "true",
  WRANGLER_SEND_METRICS: "false",
  DO_NOT_TRACK: "1",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
  npm_config_yes: "false",
  npm_config_update_notifier: "false",
};

const live = new Set(); // ChildProcess objects whose group we must kill

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

/**
 * Spawns `cmd args` detached (own process group) from ROOT (or opts.cwd) with CHILD_ENV.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, stdio?: import("node:child_process").StdioOptions }} [opts]
 */
export function spawnGroup(cmd, args, opts = {}) {
  const child = spawn(cmd, args, {
    cwd: opts.cwd ?? ROOT,
    env: CHILD_ENV,
    detached: true,
    stdio: opts.stdio ?? ["ignore", "pipe", "pipe"],
  });
  live.add(child);
  child.once("exit", () => live.delete(child));
  return child;
}

/** SIGTERM the group, wait up to graceMs, then SIGKILL it. Resolves when the leader has exited. */
export async function stopGroup(child, graceMs = 5000) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    killGroup(child, "SIGTERM");
    const timedOut = await Promise.race([exited.then(() => false), sleep(graceMs).then(() => true)]);
    if (timedOut) {
      killGroup(child, "SIGKILL");
      await Promise.race([exited, sleep(2000)]);
    }
  }
  killGroup(child, "SIGKILL"); // stragglers (workerd, esbuild) left in the group
  live.delete(child);
}

/**
 * Runs a command to completion with a hard time limit. Output is streamed to our
 * stdout/stderr (inherit) unless `capture` is set, in which case it is returned.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ timeoutMs?: number, capture?: boolean, cwd?: string }} [options]
 * @returns {Promise<{ code: number, timedOut: boolean, out: string }>}
 */
export function run(cmd, args, { timeoutMs, capture = false, cwd } = {}) {
  return new Promise((resolve) => {
    const child = spawnGroup(cmd, args, { cwd, stdio: capture ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"] });
    let out = "";
    if (capture) {
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup(child, 2000);
    }, timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      resolve({ code: 127, timedOut, out: `${out}\n${err.message}` });
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      killGroup(child, "SIGKILL");
      resolve({ code: code ?? (signal ? 128 : 1), timedOut, out });
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const exitHooks = new Set(); // synchronous cleanups (temp dirs) that must also run on SIGINT

/** Registers a synchronous cleanup to run at exit; returns a function that unregisters it. */
export function atExit(fn) {
  exitHooks.add(fn);
  return () => exitHooks.delete(fn);
}

function killAll() {
  for (const child of live) killGroup(child, "SIGKILL");
  live.clear();
  for (const fn of exitHooks) {
    try {
      fn();
    } catch {
      /* best effort */
    }
  }
  exitHooks.clear();
}

process.once("exit", killAll);
for (const [sig, code] of /** @type {[NodeJS.Signals, number][]} */ ([
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
])) {
  process.once(sig, () => {
    console.error(`\n${sig}: stopping ${live.size} child process group(s)`);
    killAll();
    process.exit(code);
  });
}

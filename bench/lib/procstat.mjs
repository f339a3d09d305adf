// Why: on a 2-core machine shared by the client, wrangler's proxy and the Worker runtime,
// requests/s mostly measures the `wrangler dev` pipeline. The CPU the Worker's own workerd
// process spends per request separates the handler's cost from everything around it.
// Linux only: reads each thread's /proc/<pid>/task/<tid>/schedstat (its run time in ns), or where
// the kernel has no schedstat, /proc/<pid>/stat (utime + stime, in 10 ms clock ticks).
import { readFileSync, readdirSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

function stat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { pgrp: Number(f[2]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return undefined;
  }
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

/**
 * The processes of the `wrangler dev` serving `port`, by role: "worker" (the workerd that runs
 * the user's Worker; it has the inspector), "proxy" (wrangler's proxy workerd on the public
 * port) and "wrangler" (node). Returns undefined off Linux.
 */
export function wranglerProcesses(port) {
  let pids;
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  const leader = pids.find((pid) => {
    const c = cmdline(pid);
    const i = c.indexOf("--port");
    return i !== -1 && c[i + 1] === String(port) && c.some((a) => a.endsWith("cli.js") || a.endsWith("wrangler"));
  });
  if (!leader) return undefined;
  const pgrp = stat(leader)?.pgrp;
  const roles = { worker: [], proxy: [], wrangler: [] };
  for (const pid of pids) {
    if (stat(pid)?.pgrp !== pgrp) continue;
    const c = cmdline(pid).join(" ");
    if (c.includes("workerd")) (c.includes("--inspector-addr") ? roles.worker : roles.proxy).push(pid);
    else if (c.includes("node")) roles.wrangler.push(pid);
  }
  return roles;
}

/** CPU ms used so far by each role's processes. */
export function cpuMs(roles) {
  if (!roles) return undefined;
  const out = {};
  for (const [role, pids] of Object.entries(roles)) out[role] = pidsCpuMs(pids);
  return out;
}

/** Difference of two cpuMs() snapshots. */
export function cpuDelta(before, after) {
  if (!before || !after) return undefined;
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]));
}

/**
 * CPU ms used so far by the given processes (Miniflare's workerd, found by direct.mjs). Ticks come in
 * 10 ms steps: a round of 400 calls at about 600 µs each is 24 of them, so one tick either way moved
 * a round's figure by 4%, as much as some targets' margins. The threads' run times have no steps.
 */
export function pidsCpuMs(pids) {
  return SCHEDSTAT ? threadsCpuMs(pids) : pids.reduce((a, pid) => a + (stat(pid)?.ticks ?? 0), 0) * TICK_MS;
}

/** The workerd processes this Node process started (Miniflare spawns them as its children). */
export function workerdChildren() {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        const s = readFileSync(`/proc/${pid}/stat`, "utf8");
        const ppid = Number(s.slice(s.lastIndexOf(")") + 2).split(" ")[1]);
        return ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd");
      } catch {
        return false;
      }
    });
}

/** Whether this kernel keeps per-thread run times (CONFIG_SCHED_INFO); without them, ticks are read. */
const SCHEDSTAT = (() => {
  try {
    return Number.isFinite(Number(readFileSync("/proc/self/schedstat", "utf8").split(" ")[0]));
  } catch {
    return false;
  }
})();

/**
 * CPU ms used so far by the given processes, to the nanosecond: the sum of their threads'
 * /proc/<pid>/task/<tid>/schedstat run times. A thread that ends between two readings takes its
 * time with it; workerd's threads live as long as the process.
 */
export function threadsCpuMs(pids) {
  let ns = 0;
  for (const pid of pids) {
    let tids;
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return ns / 1e6;
}

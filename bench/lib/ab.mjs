// Why: "did this change cost the lanes CPU?" is a question about two builds measured in the same
// run, since load on a shared machine moves every absolute figure (by 5× within minutes here). This
// builds the engine test app at a commit beside the working tree (startup-refs.mjs), serves both and
// the floors straight from workerd (direct.mjs: no dev proxy in the CPU), and measures the 2026 call,
// the 2025 call and the floors in interleaved rounds of rotating order, reading each server's CPU
// around every round, so a ratio is taken within one round (the same load) and its median reported.
import path from "node:path";
import { ROOT } from "../../scripts/lib/procs.mjs";
import { startDirect } from "./direct.mjs";
import { FLOOR_DO, FLOOR_LOG } from "./direct-phase.mjs";
import { Client } from "./http.mjs";
import { LegacySession, checkConvert, convertArgs, modernRequest } from "./mcp.mjs";
import { convertOn } from "./phases.mjs";
import { pidsCpuMs } from "./procstat.mjs";
import { fmt } from "./format.mjs";
import { median, runLoad } from "./runner.mjs";
import { build } from "./startup.mjs";
import { engineConfigIn, shortRef, sourceAt } from "./startup-refs.mjs";

/** The builds compared: A is the commit given, B the working tree. */
const SIDES = ["a", "b"];

/**
 * The rows, each with the server it measures. The floors answer a fixed body: floorDo passes the
 * request through a Durable Object per session id (the 2025 lane's yardstick), floorLog writes the
 * one request log line the engine writes by default (the 2026 lane's).
 */
function rowsOf(clients, sessions) {
  const fixed = modernRequest("tools/call", convertArgs(0));
  const floor = (server) => ({
    server,
    op: async (i) => {
      const r = await clients[server].request("POST", { ...fixed.headers, "Mcp-Session-Id": `s${i % sessions.a.length}` }, fixed.body);
      if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
    },
  });
  const rows = { floorDo: floor("floorDo"), floorLog: floor("floorLog") };
  for (const side of SIDES) {
    rows[`${side}.modern`] = { server: side, op: convertOn(clients[side]) };
    rows[`${side}.legacy`] = {
      server: side,
      op: async (i) => checkConvert(i, await sessions[side][i % sessions[side].length].call("tools/call", convertArgs(i))),
    };
  }
  return rows;
}

/**
 * Returns { a, b (labels), us: { row: [µs of server CPU per request, one per round] }, errors }.
 * @param {{ tmpDir: string, ref: string, rounds: number, perRound: number, concurrency: number, warmup: number, sessions: number }} options
 * @param {(line: string) => void} [onProgress]
 */
export async function abPhase({ tmpDir, ref, rounds, perRound, concurrency, warmup, sessions: sessionCount }, onProgress = () => {}) {
  const labels = { a: `${ref} (${await shortRef(ref)})`, b: "this checkout" };
  onProgress(`A/B: the engine test app at ${labels.a} beside ${labels.b}, served by workerd directly`);
  const configs = {
    a: engineConfigIn(await sourceAt(ref, path.join(tmpDir, "src-a"))),
    b: engineConfigIn(ROOT),
  };
  // Side by side: a build is mostly wrangler's own start-up, and nothing is measured yet.
  const [builtA, builtB] = await Promise.all(SIDES.map((s) => build(configs[s], path.join(tmpDir, `min-${s}`))));
  const prebuilt = { a: builtA, b: builtB };
  // As the direct phase serves the engine: rate limits and Static Assets unbound (both are
  // simulated inside the same workerd process here, where on Cloudflare the platform runs them).
  const unlimited = { ratelimits: {}, assets: undefined };
  const servers = {};
  const clients = {};
  const errors = [];
  try {
    const serve = async (key, config, overrides, built) => {
      servers[key] = await startDirect(path.relative(ROOT, config), path.join(tmpDir, `direct-${key}`), overrides, built);
      clients[key] = new Client(servers[key].url, { connections: Math.max(concurrency, sessionCount), timeoutMs: 60_000 });
    };
    for (const s of SIDES) await serve(s, configs[s], unlimited, prebuilt[s]);
    await serve("floorDo", path.join(ROOT, FLOOR_DO), {});
    await serve("floorLog", path.join(ROOT, FLOOR_LOG), {});
    const sessions = {};
    for (const s of SIDES)
      sessions[s] = await Promise.all(Array.from({ length: sessionCount }, () => new LegacySession(clients[s]).open()));
    const rows = rowsOf(clients, sessions);
    const keys = Object.keys(rows);
    for (const key of keys) await runLoad({ name: "warm-up", total: warmup, concurrency, maxMs: 60_000, op: rows[key].op });
    const us = Object.fromEntries(keys.map((k) => [k, []]));
    for (let round = 0; round < rounds; round++) {
      // Rotate the order, so no row always runs first or right after the same neighbour.
      const order = keys.map((_, i) => keys[(i + round) % keys.length]);
      for (const key of order) {
        const pids = servers[rows[key].server].pids;
        const before = pidsCpuMs(pids);
        const r = await runLoad({ name: key, total: perRound, concurrency, maxMs: 60_000, op: rows[key].op });
        us[key].push(((pidsCpuMs(pids) - before) * 1000) / r.done);
        if (r.errors) errors.push(`${key}: ${r.errors} errors (${r.errorSamples.join(" | ")})`);
      }
      onProgress(`  round ${round + 1}/${rounds}: ${order.map((k) => `${k} ${Math.round(us[k].at(-1))} µs`).join(", ")}`);
    }
    await Promise.all(SIDES.flatMap((s) => sessions[s].map((x) => x.close())));
    return { ...labels, us, errors };
  } finally {
    for (const c of Object.values(clients)) c.close();
    for (const sv of Object.values(servers)) await sv.stop();
  }
}

/** The median over rounds of row x's CPU over row y's in the same round. */
export function roundRatio(us, x, y) {
  return median(us[x].map((v, i) => v / us[y][i]));
}

/**
 * The A/B as Markdown: median µs of server CPU per request over the rounds, and ratios taken within
 * each round (their median), so a round under heavier load moves both sides of a ratio alike.
 * @param {{ a: string, b: string, us: Record<string, number[]> }} ab
 * @param {{ date: string, loadAtStart: string, loadAtEnd: string, rounds: number, perRound: number }} meta
 */
export function abSection({ a, b, us }, meta) {
  const cell = (key) => fmt.us(median(us[key]));
  const r = (x, y) => fmt.ratio(roundRatio(us, x, y), 1);
  const lane = (name, row, floor, target) =>
    `| ${name} | ${cell(`a.${row}`)} | ${cell(`b.${row}`)} | ${r(`b.${row}`, `a.${row}`)} | ${r(`a.${row}`, floor)} | ${r(`b.${row}`, floor)} | ≤ ${target} |`;
  return [
    `## A/B: ${b} against ${a}`,
    "",
    `Server CPU per request (µs, median of ${meta.rounds} interleaved rounds of ${meta.perRound} requests), the engine test app served by workerd directly.`,
    "",
    "| Row | A µs | B µs | B / A | A / floor | B / floor | Target |",
    "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    lane("2026-07-28 tools/call (floor: same-log Worker)", "modern", "floorLog", "1.15×"),
    lane("2025-11-25 tools/call (floor: Worker → Durable Object)", "legacy", "floorDo", "1.25×"),
    `| Worker → Durable Object floor | ${cell("floorDo")} | | | | | |`,
    `| Same-log Worker floor | ${cell("floorLog")} | | | | | |`,
    "",
    `Ratios are the median over rounds of the ratio within a round. Measured by \`npm run bench -- --ab ${a.split(" ")[0]}\` on ${meta.date} UTC (load average ${meta.loadAtStart} at the start, ${meta.loadAtEnd} at the end).`,
  ].join("\n");
}

// Why: "did this change cost the lanes CPU?" is a question about two builds measured in the same
// run, since load on a shared machine moves every absolute figure (by 5× within minutes here). This
// builds the engine test app at a commit beside the working tree (startup-refs.mjs), serves both and
// the floors straight from workerd (direct.mjs: no dev proxy in the CPU), and measures the 2026 call,
// the 2025 call and the floors in interleaved rounds of rotating order, reading each server's CPU
// around every round, so a ratio is taken within one round (the same load) and its median reported.
// Many short rounds, not a few long ones: a ratio's two readings are then seconds apart, and a
// change of load between them, the noise here, moves few rounds. Two alike builds (A/A) read
// 0.99-1.03 of each other in three runs of 41 rounds of 300 calls; 7 rounds of 400 read up to 1.07.
// Without a commit (lanesPhase) it measures the working tree alone, for the full run's targets:
// the lanes against their floors, and the spans against TRACING=off.
import path from "node:path";
import { ROOT } from "../../scripts/lib/procs.mjs";
import { AT_DEFAULTS, startDirect } from "./direct.mjs";
import { FLOOR_DO, FLOOR_LOG, FLOOR_SPAN } from "./direct-phase.mjs";
import { Client } from "./http.mjs";
import { LegacySession, checkConvert, convertArgs, modernRequest } from "./mcp.mjs";
import { convertOn } from "./phases.mjs";
import { pidsCpuMs } from "./procstat.mjs";
import { fmt } from "./format.mjs";
import { median, runLoad } from "./runner.mjs";
import { build } from "./startup.mjs";
import { engineConfigIn, shortRef, sourceAt } from "./startup-refs.mjs";

/**
 * The rows, each with the server it measures. The floors answer a fixed body: floorDo passes the
 * request through a Durable Object per session id (the 2025 lane's yardstick), floorLog writes the
 * one request log line the engine writes by default (the 2026 lane's).
 */
function rowsOf(clients, sessions, sides, spans) {
  const sessionCount = sessions.b.length;
  const fixed = modernRequest("tools/call", convertArgs(0));
  const floor = (server) => ({
    server,
    op: async (i) => {
      const r = await clients[server].request("POST", { ...fixed.headers, "Mcp-Session-Id": `s${i % sessionCount}` }, fixed.body);
      if (r.status !== 200) throw new Error(`HTTP ${r.status}`);
    },
  });
  const rows = { floorDo: floor("floorDo"), floorLog: floor("floorLog") };
  for (const side of sides) {
    rows[`${side}.modern`] = { server: side, op: convertOn(clients[side]) };
    rows[`${side}.legacy`] = {
      server: side,
      op: async (i) => checkConvert(i, await sessions[side][i % sessions[side].length].call("tools/call", convertArgs(i))),
    };
  }
  // The same call on two more servers, each span recorded by the local trace collector (whose CPU,
  // in the same process, is booked to the spans; on Cloudflare the platform records them), with
  // spans and with TRACING=off.
  // Beside them, what recording one such span costs with no engine code around it: the same-log
  // floor, traced, without a span of its own and with the engine's one (bench/floor-span).
  if (spans) {
    for (const key of ["traced", "tracedOff"]) rows[key] = { server: key, op: convertOn(clients[key]) };
    for (const key of ["floorTraced", "floorSpan"]) rows[key] = floor(key);
  }
  return rows;
}

/**
 * Returns { a, b (labels), us: { row: [µs of server CPU per request, one per round] }, errors }. A is
 * the engine test app at commit `ref`, B the working tree's; without `ref`, B alone. `spans` adds the
 * traced pair (rows "traced" and "tracedOff", the working tree's) and the traced floor without and
 * with the engine's one span ("floorTraced", "floorSpan").
 * @param {{ tmpDir: string, ref?: string, spans?: boolean, rounds: number, perRound: number, concurrency: number, warmup: number, sessions: number }} options
 * @param {(line: string) => void} [onProgress]
 */
export async function abPhase(
  { tmpDir, ref, spans = false, rounds, perRound, concurrency, warmup, sessions: sessionCount },
  onProgress = () => {},
) {
  const sides = ref ? ["a", "b"] : ["b"];
  const labels = { a: ref ? `${ref} (${await shortRef(ref)})` : undefined, b: "this checkout" };
  onProgress(
    ref
      ? `A/B: the engine test app at ${labels.a} beside ${labels.b}, served by workerd directly`
      : "the lanes beside their floors, served by workerd directly (short interleaved rounds)",
  );
  const configs = { b: engineConfigIn(ROOT) };
  if (ref) configs.a = engineConfigIn(await sourceAt(ref, path.join(tmpDir, "src-a")));
  // Side by side: a build is mostly wrangler's own start-up, and nothing is measured yet.
  const prebuilt = Object.fromEntries(
    await Promise.all(sides.map(async (s) => [s, await build(configs[s], path.join(tmpDir, `min-${s}`))])),
  );
  const servers = {};
  const clients = {};
  const errors = [];
  try {
    const serve = async (key, config, overrides, built) => {
      servers[key] = await startDirect(path.relative(ROOT, config), path.join(tmpDir, `direct-${key}`), overrides, built);
      clients[key] = new Client(servers[key].url, { connections: Math.max(concurrency, sessionCount), timeoutMs: 60_000 });
    };
    for (const s of sides) await serve(s, configs[s], AT_DEFAULTS, prebuilt[s]);
    await serve("floorDo", path.join(ROOT, FLOOR_DO), {});
    await serve("floorLog", path.join(ROOT, FLOOR_LOG), {});
    if (spans) {
      const traced = { ...AT_DEFAULTS, unsafeObservability: true };
      await serve("traced", configs.b, traced, prebuilt.b);
      await serve("tracedOff", configs.b, { ...traced, vars: { TRACING: "off" } }, prebuilt.b);
      await serve("floorTraced", path.join(ROOT, FLOOR_LOG), { unsafeObservability: true });
      await serve("floorSpan", path.join(ROOT, FLOOR_SPAN), { unsafeObservability: true });
    }
    const sessions = {};
    for (const s of sides)
      sessions[s] = await Promise.all(Array.from({ length: sessionCount }, () => new LegacySession(clients[s]).open()));
    const rows = rowsOf(clients, sessions, sides, spans);
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
    await Promise.all(sides.flatMap((s) => sessions[s].map((x) => x.close())));
    return { ...labels, us, errors, rounds, perRound };
  } finally {
    for (const c of Object.values(clients)) c.close();
    for (const sv of Object.values(servers)) await sv.stop();
  }
}

/** The working tree's lanes, their floors and its spans, for the full run's targets (see abPhase). */
export const lanesPhase = (options, onProgress) => abPhase({ ...options, ref: undefined, spans: true }, onProgress);

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

/**
 * The lanes phase as Markdown: each row's median µs and its ratio to its yardstick, the median of
 * the ratios within a round. The targets table reads the same ratios.
 * @param {{ us: Record<string, number[]>, rounds: number, perRound: number }} lanes
 */
export function lanesSection({ us, rounds, perRound }) {
  const row = (name, key, floor, floorName) =>
    `| ${name} | ${fmt.us(median(us[key]))} | ${floor ? `${fmt.ratio(roundRatio(us, key, floor), 1)} ${floorName}` : ""} |`;
  return [
    "## The lanes beside their floors (workerd direct, short interleaved rounds)",
    "",
    `Server CPU per request, the engine test app at the template's defaults (no rate limit or Static Assets simulated, no Analytics Engine dataset bound) and the floors, each served by workerd directly, in ${rounds} interleaved rounds of ${perRound} requests in rotating order; a ratio is the median over rounds of the ratio within a round, the figures the targets table reads. Two alike builds read 0.99–1.03× of each other this way (\`npm run bench -- --ab HEAD\`, three runs); a ratio between two different Workers moves more from run to run (the 2026 call against its floor: 1.05–1.27× in twenty-one readings of one tree on 2026-12-07), so a target within a few percent of its figure is met in some runs and not in others.`,
    "",
    "| row | µs, median | ratio |",
    "| --- | ---: | --- |",
    row("2026-07-28 `tools/call`", "b.modern", "floorLog", "the same-log Worker"),
    row("2025-11-25 `tools/call`", "b.legacy", "floorDo", "the Worker → Durable Object floor"),
    row("same-log Worker floor (bench/floor-log)", "floorLog"),
    row("Worker → Durable Object floor (bench/floor-do)", "floorDo"),
    row("2026-07-28 `tools/call`, spans recorded by the local trace collector", "traced", "tracedOff", "the same with `TRACING=off`"),
    row("the same with `TRACING=off`, also traced", "tracedOff"),
    ...(us.floorSpan
      ? [
          row(
            "same-log Worker floor with the engine's one span (bench/floor-span), traced",
            "floorSpan",
            "floorTraced",
            "the same floor traced, without it",
          ),
          row("same-log Worker floor, traced", "floorTraced"),
        ]
      : []),
  ].join("\n");
}

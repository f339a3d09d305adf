// Why: a 2025 session's notifications come from its hub shard's log, and the promise is that a
// restart loses none. This starts the engine test app under real `wrangler dev` with state kept on
// disk, opens a session's GET stream and sees a publish arrive on it, kills the whole server,
// starts a new one on the same state, publishes twice there while no stream is connected, and
// resumes the stream with the last Last-Event-ID it had: both notifications come back, in order,
// the one seen before the restart does not, and the next publish arrives live.
import { fileURLToPath } from "node:url";
import { EventStream, legacyHeaders, openLegacySession, requestMessage, streamHeaders, webSource } from "../wire/index.ts";
import { assert } from "./checks.mjs";
import { acrossRestarts } from "./restarts.mjs";

const CONFIG = "test/engine/app/wrangler.toml";
const LIST_CHANGED = "notifications/tools/list_changed";

async function openSession(url) {
  const send = async ({ method, headers, body }) => {
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(20_000) });
    const text = await res.text();
    return { status: res.status, header: (n) => res.headers.get(n), text };
  };
  return (await openLegacySession(send)).id;
}

/** The session's GET stream, from the start or resumed after `lastEventId`. */
async function getStream(url, sessionId, lastEventId) {
  const res = await fetch(url, { method: "GET", headers: streamHeaders(sessionId, lastEventId), signal: AbortSignal.timeout(60_000) });
  assert(
    res.status === 200 && (res.headers.get("content-type") ?? "").includes("text/event-stream"),
    `GET: HTTP ${res.status} ${res.status === 200 ? "" : await res.text()}`,
  );
  return new EventStream(webSource(res.body));
}

/** The engine test app's `announce` tool: publishes a tools list change through the hub. */
async function announce(url, sessionId) {
  const res = await fetch(url, {
    method: "POST",
    headers: legacyHeaders(sessionId),
    body: JSON.stringify(requestMessage("tools/call", { name: "announce", arguments: {} })),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  assert(res.status === 200 && text.includes("publishMs"), `announce: HTTP ${res.status} ${text.slice(0, 300)}`);
}

/** @returns {Promise<{passed: number, failed: number}>} */
export function runNotifyRestart() {
  const state = {};
  return acrossRestarts("2025 notifications across a restart", { config: CONFIG }, async ({ check, url, restart }) => {
    await check("2025-11-25: a publish arrives on the session's open GET stream", async () => {
      state.sessionId = await openSession(url());
      const stream = await getStream(url(), state.sessionId);
      const priming = await stream.next(10_000);
      assert(priming?.id, "no priming event");
      await announce(url(), state.sessionId);
      const seen = await stream.until((m) => m.method === LIST_CHANGED, 10_000);
      assert(seen?.id, `no ${LIST_CHANGED} on the stream: ${stream.raw.slice(0, 300)}`);
      state.lastEventId = seen.id;
      await stream.cancel();
    });

    await restart();

    await check(
      "2025-11-25: after a restart, Last-Event-ID gives back both publishes made while away, in order, and not the one seen",
      async () => {
        assert(state.lastEventId, "no event id from before the restart");
        await announce(url(), state.sessionId);
        await announce(url(), state.sessionId);
        const stream = await getStream(url(), state.sessionId, state.lastEventId);
        try {
          const first = await stream.until((m) => m.method === LIST_CHANGED, 10_000);
          const second = await stream.until((m) => m.method === LIST_CHANGED, 10_000);
          // A GET stream's ids end with the place in the hub shard's log, which only grows.
          const hubPlace = (id) => Number(id.split(".").pop());
          assert(
            first && second && hubPlace(state.lastEventId) < hubPlace(first.id) && hubPlace(first.id) < hubPlace(second.id),
            `replayed: ${stream.raw.slice(0, 400)}`,
          );
          assert(
            !(await stream.until((m) => m.method === LIST_CHANGED, 1_500)),
            `a third notification came back: ${stream.raw.slice(0, 600)}`,
          );
          // And the resumed stream is live: the next publish arrives on it.
          await announce(url(), state.sessionId);
          assert(await stream.until((m) => m.method === LIST_CHANGED, 10_000), "the next publish did not arrive on the resumed stream");
        } finally {
          await stream.cancel();
        }
      },
    );
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runNotifyRestart();
  console.log(`notify restart: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}

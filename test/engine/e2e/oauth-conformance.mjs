// Why: the OAuth entry (src/engine/oauth/, wrangler.oauth.toml) claims to be an OAuth 2.1
// authorization server; the official suite (@modelcontextprotocol/conformance, `authorization`
// mode) is the outside judge of that. It checks RFC 8414 metadata, then runs a real
// authorization-code grant with PKCE: it prints the /authorize URL for a person to open and
// waits for the redirect on its own callback server. Here the demo auto-approve plays the
// person (a GET of that URL is answered with the redirect), and the client it names is
// registered first through dynamic client registration with the suite's callback as its
// redirect URI.
//
// The two scenarios run in one invocation because the grant reads the metadata the first
// scenario fetched; `--scenario authorization-code-grant` alone has no metadata and fails.
import { fileURLToPath } from "node:url";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { sleep, spawnGroup, stopGroup } from "../../../scripts/lib/procs.mjs";
import { freePort, startWrangler } from "./server.mjs";
import { oauthClient } from "./oauth.mjs";

const CONFIG = "wrangler.oauth.toml";
const SCENARIOS = ["authorization-server-metadata-endpoint", "authorization-code-grant"];
const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, "");

/**
 * What the user's browser does: open the URL (the demo answers with a 302 to the suite's
 * callback) and follow the redirect. The suite prints the URL before its callback server
 * listens, so the last hop is retried for a few seconds.
 */
async function approve(url) {
  const res = await fetch(url, { redirect: "manual" });
  const location = res.headers.get("Location");
  if (res.status !== 302 || !location)
    throw new Error(`/authorize answered ${res.status}, not a redirect: ${(await res.text()).slice(0, 200)}`);
  for (let i = 0; ; i++) {
    try {
      return await fetch(location);
    } catch (err) {
      if (i >= 40) throw err;
      await sleep(250);
    }
  }
}

/** Runs `conformance authorization`, playing the user for each URL it prints; resolves with its output. */
function runSuite(args, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawnGroup("conformance", ["authorization", ...args]);
    let out = "";
    const visited = new Set();
    const onData = (d) => {
      out += d;
      // "Access the following URL in your browser…" then the URL on a line of its own.
      for (const m of stripAnsi(out).matchAll(/^(https?:\/\/\S+\/authorize\?\S+)$/gm)) {
        if (visited.has(m[1])) continue;
        visited.add(m[1]);
        approve(m[1]).catch((err) => (out += `\n[test] opening the authorize URL failed: ${err.message}\n`));
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), stopGroup(child, 2000)), timeoutMs);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, out: stripAnsi(out) });
    });
  });
}

export async function runOAuthConformance() {
  const { check, counts } = createChecks("oauth conformance");
  let server;
  try {
    server = await startWrangler({ config: CONFIG, vars: { OAUTH_DEMO_AUTO_APPROVE: "true" } });
  } catch (err) {
    await check(`start wrangler dev --config ${CONFIG}`, async () => {
      throw err;
    });
    return counts();
  }
  console.log(`  OAuth server (demo auto-approve) at ${server.origin}`);
  try {
    await check(
      `conformance authorization: ${SCENARIOS.join(" + ")}, 0 failed`,
      async () => {
        const port = await freePort();
        const client = oauthClient(server.origin, fetch, `http://127.0.0.1:${port}/callback`);
        await client.discover();
        const clientId = await client.register();
        const args = ["--url", server.origin, "--client-id", clientId, "--resource", server.url, "--port", String(port)];
        const r = await runSuite(args, 90_000);
        const summary = r.out.split("\n").filter((l) => /^(✓|✗) |^Total:/.test(l.trim()));
        for (const l of summary) console.log(`    ${l.trim()}`);
        if (r.code !== 0 || r.timedOut) console.log(r.out.slice(-3000).replace(/^/gm, "      "));
        assert(!r.timedOut, "the suite timed out");
        for (const s of SCENARIOS)
          assert(
            summary.some((l) => l.includes(`✓ ${s}:`)),
            `scenario ${s} did not pass`,
          );
        const total = /Total: (\d+) passed, (\d+) failed/.exec(r.out);
        assert(total, "no Total line in the suite's output");
        assertEqual(Number(total[2]), 0, "failed checks");
        assertEqual(r.code, 0, "exit code");
      },
      120_000,
    );
  } finally {
    if (counts().failed && process.env.E2E_VERBOSE) console.log(server.log().slice(-4000));
    await server.stop();
  }
  return counts();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await runOAuthConformance();
  console.log(`oauth conformance: ${r.passed} passed, ${r.failed} failed`);
  process.exit(r.failed ? 1 : 0);
}

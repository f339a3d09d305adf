// Why: `npm run doctor` must name each fault a hosted client meets in front of a deployment, with its fix,
// and must raise no false alarm on a healthy one. This runs the doctor (scripts/doctor.mjs, --json) against
// the engine test app and the OAuth entry (wrangler.oauth.toml) under `wrangler dev`, each behind the proxy
// of fault-proxy.mjs: passing everything through (no fault, exit 0), then reproducing one fault at a time
// (exit 1, exactly that fault, with its fix).
import { execFile } from "node:child_process";
import path from "node:path";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { startFaultProxy } from "./fault-proxy.mjs";
import { QUIRKS } from "../../../scripts/doctor/quirks.mjs";
import { oauthClient } from "./oauth.mjs";
import { ROOT } from "../../../scripts/lib/procs.mjs";
import { startWrangler } from "./server.mjs";

const DOCTOR = path.join(ROOT, "scripts/doctor.mjs");
// The slow-discovery case: a budget short enough for the test, and a delay well past it.
const SHORT_BUDGET_MS = 1500;
const SLOW_MS = 2500;

/** Runs the doctor with --json; returns its exit code and report. */
function doctor(url, args = []) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [DOCTOR, url, "--json", ...args], { cwd: ROOT, timeout: 120_000, maxBuffer: 8 << 20 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== "number") return reject(new Error(`${err.message}\n${stderr}`));
      try {
        resolve({ code: err?.code ?? 0, report: JSON.parse(stdout) });
      } catch {
        reject(new Error(`the doctor printed no JSON (exit ${err?.code ?? 0}): ${stdout.slice(0, 500)} ${stderr.slice(0, 1000)}`));
      }
    });
  });
}

const faultsOf = (report) => report.steps.flatMap((s) => s.faults.map((f) => ({ ...f, step: s.name })));
const idsOf = (report) => [...new Set(faultsOf(report).map((f) => f.id))].sort();

/**
 * One case: the doctor through a proxy in `mode`. `expect` is the fault ids it must find (none: exit 0),
 * and `fix` a pattern each of those faults' fix must match; `also` checks more of the report.
 */
async function doctorCase(check, origin, mode, { expect = [], fix, args = [], also } = {}) {
  await check(`${mode}: ${expect.length ? expect.join(", ") : "no fault"}${fix ? ` (fix names ${fix.source})` : ""}`, async () => {
    const proxy = await startFaultProxy(origin, mode, { delayMs: SLOW_MS });
    try {
      const { code, report } = await doctor(`${proxy.origin}/mcp`, args);
      const errors = report.steps.filter((s) => s.status === "error");
      assertEqual(errors.map((s) => `${s.name}: ${s.detail}`).join("; "), "", "checks the doctor could not run");
      assertEqual(idsOf(report).join(","), expect.join(","), `fault ids (${faultsOf(report).map((f) => `${f.step}: ${f.why}`).join(" | ")})`);
      assertEqual(code, expect.length ? 1 : 0, "exit status");
      for (const f of faultsOf(report)) {
        assert(f.shows && f.why && f.fix, `${f.id} has what the host shows, why and the fix`);
        if (fix) assert(fix.test(f.fix), `${f.id}'s fix names ${fix.source}: ${f.fix}`);
      }
      also?.(report);
    } finally {
      await proxy.stop();
    }
  }, 150_000);
}

async function withServer(config, check, fn, vars = {}) {
  let server;
  const started = await check(`wrangler dev ${config} starts`, async () => {
    server = await startWrangler({ config, vars });
  }, 90_000);
  if (!started) return;
  try {
    await fn(server.origin);
  } finally {
    await server.stop();
  }
}

export async function runDoctor() {
  const { check, counts } = createChecks("doctor");

  await withServer("test/engine/app/wrangler.toml", check, async (origin) => {
    await doctorCase(check, origin, "healthy", {
      also: (report) => {
        const names = report.steps.filter((s) => s.status === "ok").map((s) => s.name).join(" | ");
        for (const step of ["2026-07-28: server/discover", "2026-07-28: tools/list", "2025-11-25: initialize", "2025-11-25: DELETE ends the session", "User-Agent Claude-User"])
          assert(names.includes(step), `the step "${step}" ran and passed`);
        // Every hosted client's recorded request shape (scripts/doctor/quirks.mjs) is replayed, and served.
        for (const quirk of QUIRKS) assert(names.includes(`${quirk.client}: ${quirk.sends}`), `the quirk ${quirk.id} was replayed and served`);
        assert(!report.steps.some((s) => s.name.startsWith("tools/call")), "no tool is called without --call");
      },
    });
    await doctorCase(check, origin, "agent-blocked", {
      expect: ["edge-blocks-agent"],
      fix: /AI Crawl Control.*Block AI bots/,
      also: (report) => {
        const faulted = report.steps.filter((s) => s.status === "fault").map((s) => s.name);
        assertEqual(faulted.join(), "User-Agent Claude-User gets what a neutral agent gets", "only Claude's agent is refused");
        assert(/cf-mitigated: challenge/.test(faultsOf(report)[0].why), "the edge's signature is named");
      },
    });
    await doctorCase(check, origin, "host-not-allowed", { expect: ["host-refused"], fix: /ALLOWED_HOSTS = ".*mcp\.example\.com"/ });
    await doctorCase(check, origin, "redirect-mcp", { expect: ["redirect"], fix: /Redirect Rules/ });
    await doctorCase(check, origin, "access-login", { expect: ["redirect"], fix: /Zero Trust → Access.*Bypass/ });
    await doctorCase(check, origin, "edge-challenge", { expect: ["edge-blocks-all"], fix: /Bot Fight Mode/ });
    await doctorCase(check, origin, "cors-stripped", { expect: ["cors-missing"], fix: /Transform Rules/ });
    await doctorCase(check, origin, "sessions-404", { expect: ["session-lost"], fix: /MCP_STATE_SECRET.*Mcp-Session-Id/ });
  });

  // STRICT_HEADERS=on refuses the hosted clients' request shapes: the doctor names the client each breaks, and the fix.
  await withServer("test/engine/app/wrangler.toml", check, async (origin) => {
    await doctorCase(check, origin, "healthy", {
      expect: ["quirk-refused"],
      fix: /STRICT_HEADERS/,
      also: (report) => {
        const refused = faultsOf(report).filter((f) => f.id === "quirk-refused");
        assertEqual(refused.length, QUIRKS.length, "one fault per quirk");
        assert(refused.some((f) => /^Claude will fail every tool call/.test(f.shows) && /claude-code #93290/.test(f.why)), `the fault names the client and its thread (${refused[0]?.shows})`);
      },
    });
  }, { STRICT_HEADERS: "on" });

  // The demo sign-in (loopback only) gives the --token case below its token.
  await withServer("wrangler.oauth.toml", check, async (origin) => {
    await doctorCase(check, origin, "healthy", {
      also: (report) => {
        const ok = report.steps.filter((s) => s.status === "ok").map((s) => s.name).join(" | ");
        for (const step of ["401 challenge", "protected-resource metadata", "authorization server metadata", "PKCE S256", "client registration", "token endpoint"])
          assert(ok.includes(step), `the step "${step}" ran and passed`);
        const registration = report.steps.find((s) => s.name.startsWith("client registration"));
        assert(/registered "mcp-worker-template doctor"/.test(registration?.detail), `the registration is named as the doctor's (${registration?.detail})`);
      },
    });
    await doctorCase(check, origin, "slow-discovery", { expect: ["slow"], fix: /wrangler tail/, args: ["--budget-ms", String(SHORT_BUDGET_MS)] });
    await doctorCase(check, origin, "token-needs-resource", { expect: ["token-needs-resource"], fix: /AUTH_AUDIENCE/ });
    await doctorCase(check, origin, "other-resource", { expect: ["resource-mismatch"], fix: /custom_domain/ });

    // Behind the authorization, with a token the demo sign-in gives (no proxy: the token is for this origin's /mcp):
    // both revisions, the example app's view, and the tool named with --call, without a false alarm.
    await check("--token: both revisions, the example app's view and a tool named with --call, behind OAuth: no fault", async () => {
      const client = oauthClient(origin);
      await client.discover();
      await client.register();
      const { access_token } = await client.login("doctor-e2e");
      const { code, report } = await doctor(`${origin}/mcp`, ["--token", access_token, "--call", "convert_temperature", '{"value":100,"from":"celsius"}']);
      assertEqual(idsOf(report).join(","), "", `fault ids (${faultsOf(report).map((f) => `${f.step}: ${f.why}`).join(" | ")})`);
      assertEqual(code, 0, "exit status");
      const ok = report.steps.filter((s) => s.status === "ok").map((s) => `${s.name}: ${s.detail}`).join(" | ");
      for (const step of ["2026-07-28: tools/list", "2025-11-25: tools/list in the session", "2025-11-25: DELETE ends the session", "token endpoint"]) assert(ok.includes(step), `the step "${step}" ran and passed (${ok})`);
      assert(/MCP Apps views the tools declare: 1 of 1 read/.test(ok), `the view was read (${ok})`);
      assert(/tools\/call convert_temperature.*212/.test(ok), "the tool named with --call was called");
    }, 150_000);
  }, { OAUTH_DEMO_AUTO_APPROVE: "true" });

  // Skills (the conformance fixture's) are loaded and verified where declared, without a false alarm.
  await withServer("test/engine/conformance/wrangler.toml", check, async (origin) => {
    await doctorCase(check, origin, "healthy", {
      also: (report) => {
        const skills = report.steps.find((s) => s.name === "skills the server declares");
        assert(skills?.status === "ok" && /loaded and verified/.test(skills.detail), `the skills were loaded (${skills?.detail})`);
      },
    });
  });

  return counts();
}

// Why: `npm run doctor` must name each fault a hosted client meets in front of a deployment, with its fix,
// and must raise no false alarm on a healthy one. This runs the doctor (scripts/doctor.mjs, --json) against
// the engine test app and the OAuth entry (wrangler.oauth.toml) under `wrangler dev`, each behind the proxy
// of fault-proxy.mjs: passing everything through (no fault, exit 0), then reproducing one fault at a time
// (exit 1, exactly that fault, with its fix). Then third-party servers (the official SDK 1.x stateful and
// stateless, SDK v2, mcp-handler, tmcp: no false alarm), and small hostile servers (control sequences in
// every string, a 256 MiB answer, a tool refused for scope).
import { execFile } from "node:child_process";
import path from "node:path";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { startFaultProxy } from "./fault-proxy.mjs";
import { ELSEWHERE_DOMAIN, HOSTILE_TEXT, startHostileServer } from "./hostile-server.mjs";
import { SDK1_VERSION, startSdk1Stateful, startSdk1Stateless } from "./peers/sdk1.mjs";
import { MCP_HANDLER_VERSION, SDK2_VERSION, TMCP_VERSION, startMcpHandler, startSdk2, startTmcp } from "./peers/sdk2.mjs";
import { QUIRKS } from "../../../scripts/doctor/quirks.mjs";
import { oauthClient } from "./oauth.mjs";
import { ROOT } from "../../../scripts/lib/procs.mjs";
import { startWrangler } from "./server.mjs";

const DOCTOR = path.join(ROOT, "scripts/doctor.mjs");
// The slow-discovery case: a budget short enough for the test, and a delay well past it.
const SHORT_BUDGET_MS = 1500;
const SLOW_MS = 2500;
// The MCP Inspector's origin, named with --origin where a case needs browser clients to connect.
const INSPECTOR_ORIGIN = "http://localhost:6274";
// Control characters a terminal acts on (newline and tab aside).
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Runs the doctor (with --json unless `text`); returns its exit code, report (or text) and time. */
function doctor(url, args = [], { text = false } = {}) {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [DOCTOR, url, ...(text ? [] : ["--json"]), ...args],
      { cwd: ROOT, timeout: 120_000, maxBuffer: 8 << 20 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") return reject(new Error(`${err.message}\n${stderr}`));
        const ms = Date.now() - t0;
        if (text) return resolve({ code: err?.code ?? 0, stdout, stderr, ms });
        try {
          resolve({ code: err?.code ?? 0, report: JSON.parse(stdout), stdout, ms });
        } catch {
          reject(new Error(`the doctor printed no JSON (exit ${err?.code ?? 0}): ${stdout.slice(0, 500)} ${stderr.slice(0, 1000)}`));
        }
      },
    );
  });
}

const faultsOf = (report) => report.steps.flatMap((s) => s.faults.map((f) => ({ ...f, step: s.name })));
const idsOf = (report) => [...new Set(faultsOf(report).map((f) => f.id))].sort();

/**
 * One case: the doctor through a proxy in `mode`. `expect` is the fault ids it must find (none: exit 0),
 * and `fix` a pattern each of those faults' fix must match; `also` checks more of the report.
 * @param {any} check
 * @param {string} origin
 * @param {string} mode
 * @param {{ expect?: string[], fix?: RegExp, args?: string[], also?: (report: any, run: any) => void | Promise<void> }} [options]
 */
async function doctorCase(check, origin, mode, { expect = [], fix, args = [], also } = {}) {
  const extra = args.filter((a) => a.startsWith("--")).join(" ");
  await check(
    `${mode}${extra ? ` (${extra})` : ""}: ${expect.length ? expect.join(", ") : "no fault"}${fix ? ` (fix names ${fix.source})` : ""}`,
    async () => {
      const proxy = await startFaultProxy(origin, mode, { delayMs: SLOW_MS });
      try {
        const run = await doctor(`${proxy.origin}/mcp`, args);
        const { code, report } = run;
        const errors = report.steps.filter((s) => s.status === "error");
        assertEqual(errors.map((s) => `${s.name}: ${s.detail}`).join("; "), "", "checks the doctor could not run");
        assertEqual(
          idsOf(report).join(","),
          expect.join(","),
          `fault ids (${faultsOf(report)
            .map((f) => `${f.step}: ${f.why}`)
            .join(" | ")})`,
        );
        assertEqual(code, expect.length ? 1 : 0, "exit status");
        for (const f of faultsOf(report)) {
          assert(f.shows && f.why && f.fix, `${f.id} has what the host shows, why and the fix`);
          if (fix) assert(fix.test(f.fix), `${f.id}'s fix names ${fix.source}: ${f.fix}`);
        }
        also?.(report, { proxy, ms: run.ms });
      } finally {
        await proxy.stop();
      }
    },
    150_000,
  );
}

/**
 * A third-party server, started on 127.0.0.1: the doctor finds no false alarm in it. A server without
 * CORS, sessions or 2026-07-28 is healthy; the one fault it may have is true: the hosted clients'
 * request shapes it refuses (strict servers do refuse them, which is what makes those clients fail),
 * each named with the client it breaks.
 */
async function peerCase(check, name, start) {
  await check(
    `${name}: no false alarm (no CORS, sessions or 2026-07-28 is no fault; only the hosted-client shapes it really refuses)`,
    async () => {
      const server = await start();
      try {
        const { code, report } = await doctor(`${server.origin}/mcp`);
        const errors = report.steps.filter((s) => s.status === "error");
        assertEqual(errors.map((s) => `${s.name}: ${s.detail}`).join("; "), "", "checks the doctor could not run");
        const other = faultsOf(report).filter((f) => f.id !== "quirk-refused");
        assertEqual(other.map((f) => `${f.id}: ${f.why}`).join(" | "), "", "faults other than refused hosted-client shapes");
        const quirks = faultsOf(report).filter((f) => f.id === "quirk-refused");
        for (const q of quirks)
          assert(
            /will fail every tool call/.test(q.shows) && /#\d+|issue 43/.test(q.why),
            `a refused shape names its client and thread: ${q.shows} / ${q.why}`,
          );
        assertEqual(code, quirks.length ? 1 : 0, "exit status");
        console.log(`    ${name}: refuses ${quirks.length} hosted-client shape(s)`);
      } finally {
        await server.stop();
      }
    },
    120_000,
  );
}

/** A hostile server in `mode`; `fn` gets its origin and what it saw. */
async function hostileCase(check, title, mode, fn) {
  await check(
    title,
    async () => {
      const server = await startHostileServer(mode);
      try {
        await fn(server);
      } finally {
        await server.stop();
      }
    },
    120_000,
  );
}

async function withServer(config, check, fn, vars = {}) {
  /** @type {Awaited<ReturnType<typeof startWrangler>>} */
  let server;
  const started = await check(
    `wrangler dev ${config} starts`,
    async () => {
      server = await startWrangler({ config, vars });
    },
    90_000,
  );
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
        const names = report.steps
          .filter((s) => s.status === "ok")
          .map((s) => s.name)
          .join(" | ");
        for (const step of [
          "2026-07-28: server/discover",
          "2026-07-28: tools/list",
          "2025-11-25: initialize",
          "2025-11-25: DELETE ends the session",
          "User-Agent Claude-User",
        ])
          assert(names.includes(step), `the step "${step}" ran and passed`);
        // Every hosted client's recorded request shape (scripts/doctor/quirks.mjs) is replayed, and served.
        for (const quirk of QUIRKS)
          assert(names.includes(`${quirk.client}: ${quirk.sends}`), `the quirk ${quirk.id} was replayed and served`);
        assert(!report.steps.some((s) => s.name.startsWith("tools/call")), "no tool is called without --call");
      },
    });
    // A run opens few sessions: with this template's MCP_SESSION_RATE_LIMIT (30 a minute) a developer can
    // run the doctor again and again against `npm run dev` without meeting it.
    await doctorCase(check, origin, "healthy", {
      args: ["--origin", INSPECTOR_ORIGIN],
      also: (report, { proxy }) => {
        assert(proxy.counts.initialize <= 2, `a run opens at most 2 sessions (it opened ${proxy.counts.initialize})`);
        const cors = report.steps.filter((s) => s.name.startsWith("CORS"));
        assert(
          cors.length === 2 && cors.every((s) => s.status === "ok" && !/no CORS/.test(s.detail)),
          `CORS for ${INSPECTOR_ORIGIN} checked and passed (${cors.map((s) => s.detail).join("; ")})`,
        );
      },
    });
    // The engine app's tools lack explicit hints: with --directory each is a fault naming the tool and the rule.
    await doctorCase(check, origin, "healthy", {
      args: ["--directory"],
      expect: ["directory"],
      fix: /annotations\.readOnlyHint/,
      also: (report) => {
        const why = faultsOf(report)
          .map((f) => f.why)
          .join(" | ");
        assert(
          /Tool "greet" does not set annotations\.readOnlyHint.*ChatGPT's directory/.test(why),
          `the fault names the tool and the directory rule (${why})`,
        );
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
    await doctorCase(check, origin, "cors-stripped", {
      expect: ["cors-missing"],
      fix: /Transform Rules/,
      args: ["--origin", INSPECTOR_ORIGIN],
    });
    // Without --origin, no CORS at all is information: hosted connectors call from their servers.
    await doctorCase(check, origin, "cors-stripped");
    await doctorCase(check, origin, "sessions-404", { expect: ["session-lost"], fix: /MCP_STATE_SECRET.*Mcp-Session-Id/ });
    await doctorCase(check, origin, "session-id-dropped", { expect: ["session-lost"], fix: /Mcp-Session-Id/ });
    await doctorCase(check, origin, "html-page", {
      expect: ["not-mcp"],
      fix: /routes/,
      also: (report) =>
        assertEqual(
          report.steps
            .filter((s) => s.status === "fault")
            .map((s) => s.name)
            .join(),
          "POST /mcp reaches the server without a redirect",
          "it stops at the reach step",
        ),
    });
    await doctorCase(check, origin, "sessions-limited", {
      expect: ["rate-limited"],
      fix: /MCP_SESSION_RATE_LIMIT/,
      also: (report) =>
        assert(/the server's own rate limit/.test(faultsOf(report)[0].why), `named as the server's own limit: ${faultsOf(report)[0].why}`),
    });
  });

  // STRICT_HEADERS=on refuses the hosted clients' request shapes: the doctor names the client each breaks, and the fix.
  await withServer(
    "test/engine/app/wrangler.toml",
    check,
    async (origin) => {
      await doctorCase(check, origin, "healthy", {
        expect: ["quirk-refused"],
        fix: /STRICT_HEADERS/,
        also: (report) => {
          const refused = faultsOf(report).filter((f) => f.id === "quirk-refused");
          assertEqual(refused.length, QUIRKS.length, "one fault per quirk");
          assert(
            refused.some((f) => /^Claude will fail every tool call/.test(f.shows) && /claude-code #93290/.test(f.why)),
            `the fault names the client and its thread (${refused[0]?.shows})`,
          );
          // A server that is not this template is told the behaviour first, the template's switch after.
          for (const f of refused)
            assert(
              QUIRKS.some((q) => f.fix.startsWith(q.accept)) && f.fix.indexOf("STRICT_HEADERS") > f.fix.indexOf(". "),
              `the fix leads with what to accept, then the template's setting (${f.fix})`,
            );
        },
      });
    },
    { STRICT_HEADERS: "on" },
  );

  // The demo sign-in (loopback only) gives the --token case below its token.
  await withServer(
    "wrangler.oauth.toml",
    check,
    async (origin) => {
      await doctorCase(check, origin, "healthy", {
        also: (report) => {
          const ok = report.steps
            .filter((s) => s.status === "ok")
            .map((s) => s.name)
            .join(" | ");
          for (const step of [
            "401 challenge",
            "protected-resource metadata",
            "authorization server metadata",
            "PKCE S256",
            "client registration",
            "token endpoint",
          ])
            assert(ok.includes(step), `the step "${step}" ran and passed`);
          const registration = report.steps.find((s) => s.name.startsWith("client registration"));
          assert(
            /registered "mcp-worker-template doctor"/.test(registration?.detail),
            `the registration is named as the doctor's (${registration?.detail})`,
          );
          const cimd = report.steps.find((s) => s.name.startsWith("client ID metadata documents"));
          assert(
            cimd?.status === "ok" && /supported/.test(cimd.detail),
            `whether the authorization server accepts CIMD is reported as information (${cimd?.detail})`,
          );
        },
      });
      await doctorCase(check, origin, "slow-discovery", {
        expect: ["slow"],
        fix: /wrangler tail/,
        args: ["--budget-ms", String(SHORT_BUDGET_MS)],
      });
      // Metadata that never answers is slow, not missing, and its URLs are asked at once (one timeout, not two).
      const timeoutMs = SHORT_BUDGET_MS + 5000;
      await doctorCase(check, origin, "metadata-stall", {
        expect: ["slow"],
        fix: /wrangler tail/,
        args: ["--budget-ms", String(SHORT_BUDGET_MS)],
        also: (_report, { ms }) => assert(ms < 2 * timeoutMs, `the run took ${ms} ms, less than two timeouts (${2 * timeoutMs} ms)`),
      });
      await doctorCase(check, origin, "token-needs-resource", { expect: ["token-needs-resource"], fix: /AUTH_AUDIENCE/ });
      await doctorCase(check, origin, "other-resource", { expect: ["resource-mismatch"], fix: /custom_domain/ });

      // Behind the authorization, with a token the demo sign-in gives (no proxy: the token is for this origin's /mcp):
      // both revisions, the example app's view, and the tool named with --call, without a false alarm.
      await check(
        "--token: both revisions, the example app's view and a tool named with --call, behind OAuth: no fault",
        async () => {
          const client = oauthClient(origin);
          await client.discover();
          await client.register();
          const { access_token } = await client.login("doctor-e2e");
          // --directory: the example app's tools meet Claude's and ChatGPT's directory rules.
          const { code, report } = await doctor(`${origin}/mcp`, [
            "--token",
            access_token,
            "--directory",
            "--call",
            "convert_temperature",
            '{"value":100,"from":"celsius"}',
          ]);
          assertEqual(
            idsOf(report).join(","),
            "",
            `fault ids (${faultsOf(report)
              .map((f) => `${f.step}: ${f.why}`)
              .join(" | ")})`,
          );
          assertEqual(code, 0, "exit status");
          const ok = report.steps
            .filter((s) => s.status === "ok")
            .map((s) => `${s.name}: ${s.detail}`)
            .join(" | ");
          for (const step of [
            "2026-07-28: tools/list",
            "2025-11-25: tools/list in the session",
            "2025-11-25: DELETE ends the session",
            "token endpoint",
          ])
            assert(ok.includes(step), `the step "${step}" ran and passed (${ok})`);
          assert(/MCP Apps views the tools declare: 1 of 1 read/.test(ok), `the view was read (${ok})`);
          assert(/tools\/call convert_temperature.*212/.test(ok), "the tool named with --call was called");
          assert(
            /connector directory rules.*meet Claude's and ChatGPT's directory rules/.test(ok),
            `the directory rules were checked (${ok})`,
          );
        },
        150_000,
      );

      // This entry's MCP_SESSION_RATE_LIMIT is the template's (30 new sessions a minute): run after run
      // within the minute, the doctor must not spend it and then blame the server.
      await check(
        "six runs within a minute behind OAuth (MCP_SESSION_RATE_LIMIT 30/min): no fault in any",
        async () => {
          const client = oauthClient(origin);
          await client.discover();
          await client.register();
          const { access_token } = await client.login("doctor-e2e-repeat");
          for (let run = 1; run <= 6; run++) {
            const { code, report } = await doctor(`${origin}/mcp`, ["--token", access_token]);
            assertEqual(
              idsOf(report).join(","),
              "",
              `run ${run}: fault ids (${faultsOf(report)
                .map((f) => `${f.step}: ${f.why}`)
                .join(" | ")})`,
            );
            assertEqual(code, 0, `run ${run}: exit status`);
          }
        },
        150_000,
      );
    },
    { OAUTH_DEMO_AUTO_APPROVE: "true" },
  );

  // Skills (the conformance fixture's) are loaded and verified where declared, without a false alarm.
  await withServer("test/engine/conformance/wrangler.toml", check, async (origin) => {
    await doctorCase(check, origin, "healthy", {
      also: (report) => {
        const skills = report.steps.find((s) => s.name === "skills the server declares");
        assert(skills?.status === "ok" && /loaded and verified/.test(skills.detail), `the skills were loaded (${skills?.detail})`);
      },
    });
  });

  // Third-party servers, as their documentation wires them on node:http or a fetch handler.
  await peerCase(check, `official SDK ${SDK1_VERSION}, stateful Streamable HTTP`, startSdk1Stateful);
  await peerCase(check, `official SDK ${SDK1_VERSION}, stateless Streamable HTTP`, startSdk1Stateless);
  await peerCase(check, `official SDK v2 (@modelcontextprotocol/server ${SDK2_VERSION}), createMcpHandler`, startSdk2);
  await peerCase(check, `mcp-handler ${MCP_HANDLER_VERSION}`, startMcpHandler);
  await peerCase(check, `tmcp ${TMCP_VERSION}`, startTmcp);

  // What a server says reaches the terminal with its control characters escaped, and --json stays JSON.
  await hostileCase(
    check,
    "control sequences in a server's answers are printed escaped (lines and --json)",
    "escapes",
    async ({ origin }) => {
      const lines = await doctor(`${origin}/mcp`, [], { text: true });
      assert(
        !TERMINAL_CONTROL.test(lines.stdout),
        `no control character reaches the terminal: ${JSON.stringify(lines.stdout.match(new RegExp(`.{0,40}${TERMINAL_CONTROL.source}.{0,40}`))?.[0])}`,
      );
      assert(lines.stdout.includes("\\x1b]0;pwned\\x07"), "the escape sequence is shown, escaped");
      const { stdout, report } = await doctor(`${origin}/mcp`);
      assert(!TERMINAL_CONTROL.test(stdout), "no control character in the JSON output either");
      const text = JSON.stringify(report);
      assert(text.includes("\\\\x1b]52;c;") && !text.includes(HOSTILE_TEXT), "the JSON holds the escaped text, not the raw one");
    },
  );
  await hostileCase(check, "a 256 MiB answer is not read whole (64 KiB kept; 8 MiB at most through the client)", "huge", async (server) => {
    await doctor(`${server.origin}/mcp`);
    assert(server.seen.largest < 32 << 20, `the longest answer the server got to send was ${server.seen.largest} bytes of 256 MiB`);
  });
  await hostileCase(
    check,
    "--call refused with 403 insufficient_scope names the scope and the new consent",
    "scope-403",
    async ({ origin }) => {
      const { code, report } = await doctor(`${origin}/mcp`, ["--token", "a-token-without-notes-write", "--call", "write_note", "{}"]);
      assertEqual(
        idsOf(report).join(","),
        "scope-refused",
        `fault ids (${faultsOf(report)
          .map((f) => `${f.step}: ${f.why}`)
          .join(" | ")})`,
      );
      assertEqual(code, 1, "exit status");
      const f = faultsOf(report)[0];
      assert(
        /"notes:write"/.test(f.why) && /asks the user to sign in again/.test(f.shows),
        `the scope and the new consent are named: ${f.shows} / ${f.why}`,
      );
    },
  );

  // Declarations a host cannot honour, named with the host and the fix: an output that cannot fit Claude
  // Code's limit (the app check's rule), a view domain not in Claude's form; a domain derived from another
  // URL is said (a loopback URL cannot be judged), and an output with no bound is information.
  await hostileCase(
    check,
    "a declared output that cannot fit the hosts' limit and a view domain Claude refuses are faults, with the fix",
    "misdeclared",
    async ({ origin }) => {
      const { code, report } = await doctor(`${origin}/mcp`);
      const faults = faultsOf(report);
      assertEqual(
        idsOf(report).join(","),
        "output-cannot-fit,view-domain-wrong",
        `fault ids (${faults.map((f) => `${f.step}: ${f.why}`).join(" | ")})`,
      );
      assertEqual(code, 1, "exit status");
      const output = faults.find((f) => f.id === "output-cannot-fit");
      assert(
        /^Tool "export_rows": its declared output takes at least 86012 characters as JSON, over .*Claude Code's 25,000 tokens\) of 50000/.test(
          output.why,
        ) &&
          /Claude Code refuses/.test(output.shows) &&
          /check:app/.test(output.fix),
        `the tool, its least size, the host and the app check are named: ${output.why} / ${output.fix}`,
      );
      const outputs = report.steps.find((s) => s.name.startsWith("declared outputs fit"));
      assert(/1 may return more \(search\)/.test(outputs.detail), `an output with no bound is information: ${outputs.detail}`);
      const domain = faults.filter((f) => f.id === "view-domain-wrong");
      assertEqual(domain.length, 1, "one view's domain is refused");
      assert(
        /ui:\/\/misdeclared\/chart\.html/.test(domain[0].shows) &&
          /"https:\/\/chart\.example\.com" is not Claude's form/.test(domain[0].why),
        `the view and its domain are named: ${domain[0].shows} / ${domain[0].why}`,
      );
      assert(
        /server-json -- --url <your deployed \/mcp URL>/.test(domain[0].fix),
        `the fix names the deployed URL's value: ${domain[0].fix}`,
      );
      const views = report.steps.find((s) => s.name === "MCP Apps views the tools declare");
      assert(
        views.detail.includes(`${ELSEWHERE_DOMAIN} is for another URL than this local one`),
        `the other URL's domain is said: ${views.detail}`,
      );
      assert(
        /csp\.connectDomains "api\.example\.com" is not an origin/.test(views.detail),
        `the app check's CSP rule is said: ${views.detail}`,
      );
      // The limit a fork's users meet (Codex's is lower, a fork's budget higher) replaces Claude Code's.
      const roomy = await doctor(`${origin}/mcp`, ["--max-result-chars", "100000"]);
      assertEqual(idsOf(roomy.report).join(","), "view-domain-wrong", "with --max-result-chars 100000 the output fits");
    },
  );

  return counts();
}

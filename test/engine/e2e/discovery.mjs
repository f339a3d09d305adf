// Why: what discovery serves is read by strangers' software and by people, so it is judged here as they
// meet it, from a real `wrangler dev` of the discovery fixture app (test/engine/discovery-app/): the
// Server Card fetched over HTTP and validated in Node against the extension's schema with ajv (which
// cannot run inside workerd), the AI Catalog, `npm run doctor` finding no fault and reporting each
// discovery step, and the page a browser gets on /mcp rendered in headless Chromium (playwright-core, as
// the OAuth consent page is) with no console error, its copy button working, and a screenshot kept in
// test/.tmp/discovery-page.png. Without Chromium the browser part says so and counts as skipped.
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { assert, assertEqual, createChecks } from "./checks.mjs";
import { findChromium } from "./oauth-browser.mjs";
import { ROOT } from "../../../scripts/lib/procs.mjs";
import { cardValidator } from "../../../scripts/lib/server-card.mjs";
import { startWrangler } from "./server.mjs";

const CONFIG = "test/engine/discovery-app/wrangler.toml";
export const PAGE_SCREENSHOT = path.join(ROOT, "test", ".tmp", "discovery-page.png");

/** `npm run doctor -- <url> --json`: its exit code and report. */
const doctor = (url) =>
  new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [path.join(ROOT, "scripts/doctor.mjs"), url, "--json"],
      { cwd: ROOT, timeout: 120_000 },
      (err, stdout, stderr) => {
        try {
          resolve({ code: err?.code ?? 0, report: JSON.parse(stdout) });
        } catch {
          reject(new Error(`the doctor printed no JSON: ${stdout.slice(0, 300)} ${stderr.slice(0, 500)}`));
        }
      },
    ),
  );

export async function runDiscovery() {
  const { check, counts } = createChecks("discovery");
  let server;
  try {
    server = await startWrangler({ config: CONFIG });
  } catch (err) {
    await check(`start wrangler dev --config ${CONFIG}`, async () => {
      throw err;
    });
    return counts();
  }
  let skipped;
  try {
    await check("the Server Card validates against the extension's schema, and the catalog lists it", async () => {
      const res = await fetch(`${server.url}/server-card`, { headers: { Accept: "application/mcp-server-card+json" } });
      assertEqual(res.status, 200, "card status");
      assertEqual(res.headers.get("content-type"), "application/mcp-server-card+json", "card type");
      const card = await res.json();
      assertEqual(cardValidator()(card).join("; "), "", "what the schema finds wrong with the card");
      assertEqual(card.remotes[0].url, server.url, "the card's remote");
      const catalog = await (await fetch(`${server.origin}/.well-known/ai-catalog.json`)).json();
      assertEqual(catalog.entries[0].url, `${server.url}/server-card`, "the catalog's entry");
    });

    await check(
      "npm run doctor finds no fault and reports the card, the catalog, the page and the reviewer's view",
      async () => {
        const { code, report } = await doctor(server.url);
        const steps = Object.fromEntries(report.steps.map((s) => [s.name, s]));
        const faults = report.steps.flatMap((s) => s.faults.map((f) => `${s.name}: ${f.id} ${f.why}`));
        assertEqual(faults.join("; "), "", "faults");
        assertEqual(code, 0, "exit status");
        assert(
          /agrees with the server; its ETag revalidates \(304\)/.test(steps["Server Card (<mcp URL>/server-card, no token)"]?.detail),
          "card step",
        );
        assert(/this server's among them/.test(steps["AI Catalog (/.well-known/ai-catalog.json)"]?.detail), "catalog step");
        assert(/^a page \(\d+ bytes, with a CSP\)/.test(steps["a browser opening the URL"]?.detail), "page step");
        assertEqual(steps["what a directory's reviewer would flag in the card"]?.detail, "nothing the registry refuses", "reviewer step");
      },
      150_000,
    );

    const executablePath = findChromium();
    if (!executablePath) {
      skipped = "NO CHROMIUM: THE PAGE FOR PEOPLE WAS NOT RENDERED IN A BROWSER";
      console.log(`\n  !!!!! ${skipped} !!!!!\n  Install it (Debian: apt-get install -y chromium) or set CHROMIUM_PATH.`);
    } else {
      await check(
        "Chromium renders the page on /mcp with no console error, and its button copies the URL",
        async () => {
          const { chromium } = await import("playwright-core");
          const browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
          try {
            const context = await browser.newContext({ viewport: { width: 900, height: 760 } });
            await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.origin });
            const page = await context.newPage();
            const problems = [];
            page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
            page.on("pageerror", (e) => problems.push(String(e)));
            const shown = await page.goto(server.url);
            assertEqual(shown?.status(), 200, "page status");
            assertEqual(await page.locator("h1").innerText(), "Engine test app", "heading");
            assertEqual(await page.locator("#url").innerText(), server.url, "the URL shown");
            await page.getByRole("button", { name: "Copy" }).click();
            await page.getByRole("button", { name: "Copied" }).waitFor({ timeout: 5000 });
            assertEqual(await page.evaluate(() => navigator.clipboard.readText()), server.url, "the clipboard");
            assert(await page.getByRole("link", { name: "Server Card" }).isVisible(), "no link to the card");
            mkdirSync(path.dirname(PAGE_SCREENSHOT), { recursive: true });
            await page.screenshot({ path: PAGE_SCREENSHOT, fullPage: true });
            console.log(`    screenshot of the page: ${PAGE_SCREENSHOT}`);
            assertEqual(problems.join(" | "), "", "console errors");
          } finally {
            await browser.close();
          }
        },
        60_000,
      );
    }
  } finally {
    await server.stop();
  }
  return skipped ? { ...counts(), skipped } : counts();
}

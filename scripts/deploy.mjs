// Why: `npm run deploy` is `wrangler deploy` behind the checks a first deploy of a fork fails
// without, each of which would otherwise show up only in production. In order:
//   1. the app's definitions (scripts/check-app.mjs): a mistake there fails every request;
//   2. the preconditions of scripts/deploy-checks.mjs, all named at once with the command that
//      meets each: logged in, the Worker's own name, its own rate-limit ids, MCP_STATE_SECRET set,
//      each D1 database (and, when wrangler can list them, each KV namespace and R2 bucket) existing,
//      authentication on when the app declares scopes (unless it sets allowUnauthenticated), no
//      dev-only setting (MCP_DEV_TOKEN_KEY, MCP_DEV), and the OAuth entry's config holding every
//      binding of wrangler.toml;
//   3. each D1 binding's migrations/ applied to the deployed database (`wrangler d1 migrations apply
//      <binding> --remote`) before the Worker that reads its tables goes out;
//   4. `wrangler deploy`, which creates KV namespaces and R2 buckets declared without an id;
//   5. the MCP Registry's server.json for the deployed URL (scripts/server-json.mjs), written beside the build.
// With `--dry-run` nothing is uploaded or applied: it says what 2 and 3 would check and run, and
// what it could not check without asking Cloudflare, then `wrangler deploy --dry-run` builds the
// bundle. Every check is of the config wrangler deploys (`--config`/`-c`, `--env`/`-e`, TOML or
// JSON; scripts/lib/wrangler-config.mjs). Every argument goes on to wrangler:
//
//   npm run deploy [-- <wrangler deploy flags>]      e.g. npm run deploy -- --dry-run --outdir dist
import { randomInt } from "node:crypto";
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkAppDefinitions } from "./check-app.mjs";
import { d1Databases, migrationsCommand } from "./d1-migrations.mjs";
import { SECRET, deployProblems, isOAuthEntry, provisioned, unchecked } from "./deploy-checks.mjs";
import { missingBindings } from "./lib/entry-bindings.mjs";
import { flagValue, readWranglerConfig, targetFlags, targetName, wranglerTarget } from "./lib/wrangler-config.mjs";
import { serverJsonFor, signInOf } from "./server-json.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const args = process.argv.slice(2);
// The config and environment `wrangler deploy` will use (`--config`/`-c`, `--env`/`-e`, TOML or JSON):
// every check and migration below is of that one (scripts/lib/wrangler-config.mjs).
const target = wranglerTarget(ROOT, args);
const { configFile, env } = target;
const dryRun = args.includes("--dry-run");

const refuse = (lines) => {
  console.error(`\nnpm run deploy: not deployed.\n${lines.map((l) => `  ${l}`).join("\n")}\n`);
  process.exit(1);
};

const app = await checkAppDefinitions(ROOT);
if (app.loaded && app.problems.length)
  refuse([`src/server.ts has definition mistakes (every request would fail):`, ...app.problems.map((p) => `✗ ${p}`)]);
if (!app.loaded) console.warn(`app check: skipped in Node (${app.why}); \`npm test\` checks the app inside workerd`);

const config = await readWranglerConfig(ROOT, target);
const d1 = await d1Databases(ROOT, target, config);

// The OAuth entry serves the same app: every binding of wrangler.toml its tools read must be in its config too.
if (isOAuthEntry(config) && path.resolve(ROOT, configFile) !== path.resolve(ROOT, "wrangler.toml")) {
  const lacking = missingBindings(
    await readWranglerConfig(ROOT, { configFile: "wrangler.toml", env }),
    config,
    "wrangler.toml",
    configFile,
  );
  const lines = [
    `${configFile} (the OAuth entry) lacks what the app's tools read through wrangler.toml; they would fail with an internal error:`,
    ...lacking.map((l) => `✗ ${l}`),
  ];
  if (lacking.length && !dryRun) refuse(lines);
  if (lacking.length)
    console.warn(`\nnpm run deploy --dry-run: a real deploy would stop here first:\n${lines.map((l) => `  ${l}`).join("\n")}\n`);
}

/** A wrangler command's exit code and output, its stdin closed so that it never waits on a prompt. */
const wrangler = (...a) => {
  const r = spawnSync("wrangler", a, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}`, stdout: r.stdout ?? "" };
};
const json = (r) => {
  try {
    return r.ok ? JSON.parse(r.stdout) : undefined;
  } catch {
    return undefined;
  }
};

const migrations = d1.filter((db) => db.files.length);
const facts = {
  configFile,
  env,
  config,
  d1,
  app: app.loaded ? app.auth : undefined,
  features: app.loaded ? app.features : undefined,
  mountRefusals: app.loaded ? (app.mountRefusals?.(config.vars ?? {}) ?? []) : [],
  randomId: () => randomInt(100_000, 2_000_000_000),
};
if (dryRun) {
  // Nothing is asked of Cloudflare: what can be judged from the files is, and what cannot is said.
  const dry = { ...facts, loggedIn: undefined };
  const problems = deployProblems(dry);
  if (problems.length)
    console.warn(
      `\nnpm run deploy --dry-run: a real deploy would stop here first:\n${problems.map((p) => `  ✗ ${p.problem}\n      ${p.fix}`).join("\n")}\n`,
    );
  for (const db of migrations)
    console.log(
      `npm run deploy --dry-run: would apply D1 ${db.binding}'s migrations before the Worker (${db.files.join(", ")}): ${migrationsCommand(db.binding, target, "--remote").join(" ")}`,
    );
  const notChecked = unchecked(dry);
  if (notChecked.length)
    console.warn(
      `\nnpm run deploy --dry-run: not checked (a dry run asks Cloudflare nothing; a real deploy checks these first):\n${notChecked.map((n) => `  ? ${n}`).join("\n")}\n`,
    );
} else {
  const whoami = wrangler("whoami");
  const loggedIn = process.env.CLOUDFLARE_API_TOKEN ? true : /not authenticated/i.test(whoami.out) ? false : whoami.ok ? true : undefined;
  let secrets;
  /** @type {{ d1?: any, kv?: any, r2?: string[] }} */
  let remote;
  if (loggedIn) {
    const listed = wrangler("secret", "list", "--format", "json", ...targetFlags(target));
    secrets = json(listed)?.map((s) => s.name) ?? (/not found|does not exist|10007/i.test(listed.out) ? "no-worker" : undefined);
    remote = {
      d1: d1.length ? json(wrangler("d1", "list", "--json")) : undefined,
      kv: config.kv_namespaces?.some((kv) => kv.id) ? json(wrangler("kv", "namespace", "list")) : undefined,
    };
    const buckets = config.r2_buckets?.some((r2) => r2.bucket_name) ? wrangler("r2", "bucket", "list") : undefined;
    if (buckets?.ok) remote.r2 = [...buckets.stdout.matchAll(/^name:\s+(\S+)/gm)].map((m) => m[1]);
  }
  const real = { ...facts, loggedIn, secrets, remote };
  const problems = deployProblems(real);
  if (problems.length) refuse(problems.flatMap((p, i) => [`${i + 1}. ${p.problem}`, `     ${p.fix}`]));
  if (secrets === undefined)
    console.warn(
      `\n!!! Could not ask wrangler whether the Worker has ${SECRET} (offline?). If it is not set, 2026-07-28 input rounds fail:\n!!!   openssl rand -hex 32 | npx wrangler secret put ${SECRET} ${targetFlags(target).join(" ")}\n`,
    );
  const notChecked = unchecked(real).filter((n) => !n.includes(SECRET));
  if (notChecked.length)
    console.warn(`\nnpm run deploy: could not check (wrangler did not say):\n${notChecked.map((n) => `  ? ${n}`).join("\n")}\n`);

  for (const db of migrations) {
    const [cmd, ...rest] = migrationsCommand(db.binding, target, "--remote");
    console.log(
      `\nD1 ${db.binding}: applying its migrations to the deployed database before the Worker goes out: ${cmd} ${rest.join(" ")}`,
    );
    const r = spawnSync(cmd, rest, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
    if (r.status !== 0) refuse([`D1 ${db.binding}: its migrations failed (above); the Worker was not deployed.`]);
  }
}
const created = provisioned(config);
if (created.length)
  console.log(
    `wrangler deploy creates what ${targetName(target)} declares without an id, and writes the ids into it: ${created.join(", ")}`,
  );

// wrangler's output is shown as it comes, and kept: it names the URL the registry entry is for.
const deploy = await new Promise((resolve) => {
  const child = spawn("wrangler", ["deploy", ...args], { cwd: ROOT, stdio: ["inherit", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => {
    process.stdout.write(d);
    out = (out + d).slice(-20_000);
  });
  child.on("close", (code) => resolve({ status: code, out }));
});
if (deploy.status === 0) await writeRegistryEntry(deploy.out);
process.exit(deploy.status ?? 1);

/**
 * The MCP Registry's `server.json` for what was deployed (scripts/server-json.mjs), written beside the
 * build (`--outdir`, else the project), and how to publish it (docs/discovery.md).
 */
async function writeRegistryEntry(out) {
  const url = /https:\/\/[a-z0-9.-]+\.workers\.dev\b/i.exec(out)?.[0];
  const file = path.join(flagValue(args, "--outdir") ?? ROOT, "server.json");
  if (!url) {
    const hint = dryRun ? "a dry run deploys nothing" : "wrangler named no workers.dev URL";
    console.log(`\nThe MCP Registry entry (${hint}): npm run server-json -- --url https://<your host>/mcp --out server.json`);
    return;
  }
  try {
    const { doc, problems } = await serverJsonFor({ url: `${url}/mcp`, signIn: signInOf(config) });
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    console.log(`\nThe MCP Registry entry for ${url}/mcp: ${path.relative(process.cwd(), file) || file} (${doc.name} ${doc.version}).`);
    for (const p of problems) console.warn(`  ! the registry would refuse it: ${p}`);
    console.log("  Publish it: mcp-publisher login github (or dns / http, docs/discovery.md), then mcp-publisher publish");
  } catch (err) {
    console.warn(`\nThe MCP Registry entry was not written (${err?.message ?? err}); npm run server-json -- --url ${url}/mcp`);
  }
}

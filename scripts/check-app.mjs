// Why: a definition mistake in src/server.ts (two tools with one name, a name with a space, a URI
// template with no variable, a schema with no JSON Schema) would otherwise first show as an
// "Internal error" in a client, after deploy. This loads the app in Node and lists every mistake
// by name. `npm test`, `npm run dev` (scripts/dev.mjs) and `npm run deploy` refuse to go on while there is one.
// Tools that Claude's or ChatGPT's connector directory would refuse (src/engine/mcp/directory.ts) are
// warnings: printed by `npm test` and this script, never a reason to stop.
//
//   node scripts/check-app.mjs [--warn] [root]     (--warn: print, exit 0; root: the project)
import { build } from "esbuild";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// Workers-only modules an app may import; the check only reads definitions, so stand-ins do.
const CLOUDFLARE_STANDINS = `
export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class WorkerEntrypoint { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class WorkflowEntrypoint { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class RpcTarget {}
export const env = {};
export function waitUntil() {}
export const tracing = undefined;
`;

/**
 * What `npm run deploy` needs of the app's authorization (scripts/deploy-checks.mjs): whether an
 * operation declares scopes (or `defineAuthorization({ scopes })` gives every one a default), and
 * whether the app opted into serving them without authentication (`allowUnauthenticated: true`).
 */
const AUTH_OF = `() => {
  const a = app?.authorization;
  const defs = [...(app?.tools ?? []), ...(app?.resources ?? []), ...(app?.resourceTemplates ?? []), ...(app?.prompts ?? [])];
  return { scoped: !!(a?.scopes?.length || defs.some((d) => d?.scopes)), allowUnauthenticated: a?.allowUnauthenticated === true };
}`;

/**
 * `problems` fail the check; `warnings` (what keeps the app out of Claude's and ChatGPT's directories) do not,
 * nor `notes` (what an OpenAPI import decided for its document: a renamed operation, a body kept whole).
 * @typedef {{ scoped: boolean, allowUnauthenticated: boolean }} AppAuth
 * @returns {Promise<{ loaded: boolean, problems: string[], warnings: string[], notes?: string[], auth?: AppAuth, why?: string }>}
 */
export async function checkAppDefinitions(root = ROOT) {
  const dir = path.join(root, "test", ".tmp", "check-app");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, "app-check.mjs");
  const posix = (p) => p.split(path.sep).join("/");
  try {
    await build({
      stdin: {
        contents: `import app from "${posix(path.join(root, "src/server.ts"))}";\nimport { checkApp, checkAppNotes, checkAppWarnings } from "${posix(path.join(root, "src/engine/mcp/check-app.ts"))}";\nexport default () => checkApp(app);\nexport const warnings = () => checkAppWarnings(app);\nexport const notes = () => checkAppNotes(app);\nexport const authOf = ${AUTH_OF};\n`,
        resolveDir: root,
        loader: "js",
      },
      bundle: true,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      outfile,
      logLevel: "silent",
      plugins: [
        {
          name: "cloudflare-standins",
          setup(b) {
            b.onResolve({ filter: /^cloudflare:/ }, (args) => ({ path: args.path, namespace: "cloudflare-standin" }));
            b.onLoad({ filter: /.*/, namespace: "cloudflare-standin" }, () => ({ contents: CLOUDFLARE_STANDINS, loader: "js" }));
          },
        },
      ],
    });
  } catch (err) {
    return {
      loaded: false,
      problems: [],
      warnings: [],
      why: `could not bundle src/server.ts for the check: ${err.message.split("\n").slice(0, 6).join("\n")}`,
    };
  }
  let run, warn, notesOf, authOf;
  try {
    ({ default: run, warnings: warn, notes: notesOf, authOf } = await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`));
  } catch (err) {
    return { loaded: false, problems: [], warnings: [], why: `src/server.ts did not load in Node for the check: ${err?.message ?? err}` };
  }
  // The app's own module loaded; from here on what fails is a definition.
  let warnings = [];
  let notes = [];
  try {
    warnings = warn();
    notes = notesOf();
  } catch {
    // A definition that breaks the warnings breaks the check below too, which names it.
  }
  try {
    return { loaded: true, problems: run(), warnings, notes, auth: authOf() };
  } catch (err) {
    return { loaded: true, problems: [String(err?.message ?? err)], warnings, notes, auth: authOf() };
  }
}

/** Prints the directory warnings (they never fail a check). */
export function printDirectoryWarnings(warnings, log = console.warn) {
  if (!warnings?.length) return;
  log(
    `app check: ${warnings.length} ${warnings.length === 1 ? "warning" : "warnings"} (the app works; Claude's and ChatGPT's connector directories would not list it):`,
  );
  for (const w of warnings) log(`  ! ${w}`);
}

/** Prints what OpenAPI imports decided for their documents (never a reason to stop). */
export function printImportNotes(notes, log = console.log) {
  if (!notes?.length) return;
  log(
    `app check: ${notes.length} ${notes.length === 1 ? "note" : "notes"} on imported OpenAPI documents (the app works; each was resolved as it says):`,
  );
  for (const n of notes) log(`  · ${n}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const warnOnly = args.includes("--warn");
  const root = path.resolve(args.find((a) => !a.startsWith("--")) ?? ROOT);
  const { loaded, problems, warnings, notes, why } = await checkAppDefinitions(root);
  printDirectoryWarnings(warnings);
  printImportNotes(notes);
  if (!loaded) {
    // An app that needs more of the Workers runtime than Node has is checked by `npm test` inside
    // workerd instead (test/app-checks/); this is not a mistake in it.
    console.warn(`app check: skipped in Node (${why}); npm test checks the app inside workerd`);
    process.exit(0);
  }
  if (problems.length === 0) {
    console.log("app check: src/server.ts defines no duplicate or invalid names, URI templates or schemas");
    process.exit(0);
  }
  const lines = problems.map((p) => `  ✗ ${p}`).join("\n");
  console.error(
    `\napp check: src/server.ts has ${problems.length} definition ${problems.length === 1 ? "mistake" : "mistakes"}:\n${lines}\n`,
  );
  if (warnOnly) console.error("A client calling this server will get errors until they are fixed.\n");
  process.exit(warnOnly ? 0 : 1);
}

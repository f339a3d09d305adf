// Why: the official MCP Registry lists a server from a `server.json` its owner publishes with
// `mcp-publisher`. Written by hand it drifts from the server (another version, another description);
// this prints it from the app's own definitions (src/server.ts's `info` and `discovery({ name })`),
// by the same rules as the Server Card the Worker serves (src/engine/mcp/discovery.ts), for the
// deployed /mcp URL. It names what the registry would refuse. `npm run deploy` writes it after a deploy.
//
//   npm run server-json -- --url https://<your host>/mcp [--auth none|token|oauth] [--out server.json]
//
// --auth: how a client gets in; unset, read from the wrangler config (AUTH_MODE=token: a header
// the user supplies; AUTH_MODE=jwt or the OAuth entry: OAuth, no header; else none).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { bundleForNode } from "./check-app.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** How a client of a Worker with this wrangler config (and its vars) gets in. */
export function signInOf(config) {
  if (/src\/engine\/oauth\//.test(String(config?.main ?? ""))) return "oauth";
  const mode = String(config?.vars?.AUTH_MODE ?? "")
    .trim()
    .toLowerCase();
  return mode === "token" ? "token" : mode === "jwt" ? "oauth" : "none";
}

/**
 * The `server.json` of the app under `root` served at `url`, and what the registry would refuse in it.
 * @param {{ root?: string, url: string, signIn: "none" | "token" | "oauth" }} o
 * @returns {Promise<{ doc: any, problems: string[], discovery: boolean, claudeDomain?: string }>}
 */
export async function serverJsonFor({ root = ROOT, url, signIn }) {
  const dir = path.join(root, "test", ".tmp", "server-json");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, "server-json.mjs");
  const posix = (p) => p.split(path.sep).join("/");
  await bundleForNode(
    root,
    `import app from "${posix(path.join(root, "src/server.ts"))}";
import { registryProblems, serverJson } from "${posix(path.join(root, "src/engine/mcp/discovery.ts"))}";
import { claudeViewDomain } from "${posix(path.join(root, "src/engine/mcp/view-hosts.ts"))}";
export default async (url, signIn) => {
  const doc = serverJson(app.info, url, signIn, app.discovery?.name);
  const views = (app.tools ?? []).some((t) => t?.view);
  const claudeDomain = views ? await claudeViewDomain(String(doc.remotes[0].url)) : undefined;
  return { doc, problems: registryProblems(doc), discovery: !!app.discovery, claudeDomain };
};
`,
    outfile,
  );
  const { default: build } = await import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
  return build(url, signIn);
}

/** The /mcp URL as given, checked: an absolute http(s) URL whose path is the endpoint. */
export function mcpUrl(given) {
  let url;
  try {
    url = new URL(given);
  } catch {
    throw new Error(`--url "${given}" is not a URL; give the deployed endpoint, e.g. https://my-server.example.workers.dev/mcp`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`--url must be http(s), not ${url.protocol}`);
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/mcp";
  url.hash = "";
  return url.href.replace(/\/$/, "");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { url: { type: "string" }, auth: { type: "string" }, out: { type: "string" }, config: { type: "string", short: "c" } },
  });
  try {
    if (!values.url) throw new Error("give the deployed MCP URL: npm run server-json -- --url https://<your host>/mcp");
    let signIn = values.auth;
    if (signIn === undefined) {
      const { readWranglerConfig, wranglerTarget } = await import("./lib/wrangler-config.mjs");
      const argv = values.config ? ["--config", values.config] : [];
      signIn = signInOf(await readWranglerConfig(ROOT, wranglerTarget(ROOT, argv)));
    }
    if (!["none", "token", "oauth"].includes(signIn)) throw new Error(`--auth is none, token or oauth, not "${signIn}"`);
    const { doc, problems, discovery, claudeDomain } = await serverJsonFor({
      url: mcpUrl(values.url),
      signIn: /** @type {any} */ (signIn),
    });
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    if (values.out) writeFileSync(values.out, text);
    else process.stdout.write(text);
    if (!discovery)
      console.error("server-json: the app has no `discovery` (docs/discovery.md): it serves no Server Card to match this entry.");
    if (claudeDomain) console.error(`server-json: Claude's ui.domain for views served at this URL: ${claudeDomain}`);
    for (const p of problems) console.error(`server-json: the registry would refuse this: ${p}`);
    process.exit(problems.length ? 1 : 0);
  } catch (err) {
    console.error(`server-json: ${err?.message ?? err}`);
    process.exit(1);
  }
}

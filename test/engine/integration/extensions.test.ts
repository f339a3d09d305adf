/**
 * The opt-in extensions through /mcp (2026-07-28; the 2025 lane runs them through the same core and
 * is covered end to end by the conformance suite and test/engine/e2e/extensions.mjs): Skills served from
 * Static Assets with the digests the build recorded, and MCP Apps views with their `_meta.ui`, their
 * HTML from Static Assets, and the text-only tools a host without the extension gets. The files are
 * the conformance fixture's assets (the engine app's [assets] binding).
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  UI_EXTENSION,
  VIEW_MIME_TYPE,
  createMcpWorker,
  defineApp,
  defineTool,
  defineView,
  skills,
  type SkillsManifest,
} from "../../../src/mcp";
import engine from "../app/index";
import manifest from "../conformance/skills.json";
import { buildModernRequest, type RpcMessage } from "../helpers/mcp";
import { parse as parseYaml } from "yaml";
import { McpClient } from "../../../src/engine/client";
import { readSkillMarkdown } from "../../../src/engine/client/frontmatter";
import { SkillVerificationError, listSkills, loadSkill, readSkillFile, type SkillEntry } from "../../../src/engine/client/skills";

const probe = defineView({
  uri: "ui://probe/view.html",
  name: "probe",
  title: "Probe view",
  asset: "/views/probe.html",
  csp: { connectDomains: ["https://api.example.test"] },
  permissions: { clipboardWrite: {} },
  prefersBorder: false,
});

const extApp = defineApp({
  info: { name: "extensions-app", version: "0.0.0" },
  tools: [
    defineTool({
      name: "measure",
      description: "Returns a reading the probe view shows.",
      input: v.object({ celsius: v.number() }),
      output: v.object({ celsius: v.number(), kelvin: v.number() }),
      view: probe,
      handler: ({ celsius }) => ({ celsius, kelvin: celsius + 273.15 }),
    }),
    defineTool({
      name: "refresh",
      description: "Only the view calls this.",
      view: probe,
      _meta: { ui: { visibility: ["app"] } },
      handler: () => "refreshed",
    }),
    defineTool({ name: "plain", description: "No view.", handler: () => "plain" }),
  ],
  extensions: [skills(manifest as SkillsManifest)],
});
const worker = createMcpWorker(extApp);

const UI_HOST = { extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } } };

async function rpc(
  target: { fetch: typeof worker.fetch },
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = {},
): Promise<RpcMessage> {
  const { message, headers } = buildModernRequest(method, params, { capabilities });
  const ctx = createExecutionContext();
  const res = await target.fetch(
    new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
    env as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return (await res.json()) as RpcMessage;
}
const result = async (...args: Parameters<typeof rpc>) => {
  const body = await rpc(...args);
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  return body.result as any;
};

async function sha256(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

describe("an app that uses no extension", () => {
  it("declares none and has no extension methods", async () => {
    const discover = await result(engine, "server/discover");
    expect(discover.capabilities.extensions ?? {}).not.toHaveProperty(UI_EXTENSION);
    expect(discover.capabilities.extensions ?? {}).not.toHaveProperty("io.modelcontextprotocol/skills");
    expect((await rpc(engine, "skills/list")).error?.code).toBe(-32601);
  });

  it("lists its tools as public and cacheable for the app's ttl, whatever the host declared", async () => {
    for (const caps of [{}, UI_HOST]) {
      const list = await result(engine, "tools/list", {}, caps);
      expect(list.cacheScope).toBe("public");
      expect(list.ttlMs).toBe(60_000);
    }
  });
});

describe("Skills", () => {
  it("declares the extension with directoryRead beside the resources capability", async () => {
    const { capabilities } = await result(worker, "server/discover");
    expect(capabilities.extensions["io.modelcontextprotocol/skills"]).toEqual({ directoryRead: true });
    expect(capabilities.resources).toBeDefined();
  });

  it("lists each skill with digests and sizes that match the bytes resources/read serves from the assets", async () => {
    const list = await result(worker, "skills/list");
    expect(list.ttlMs).toBeTypeOf("number");
    expect(list.cacheScope).toBe("public");
    const [skill] = list.skills;
    expect(skill.uri).toBe("skill://unit-conversion/SKILL.md");
    expect(skill.frontmatter.name).toBe("unit-conversion");
    expect(skill.resources.map((r: { uri: string }) => r.uri)).toEqual([
      "skill://unit-conversion/SKILL.md",
      "skill://unit-conversion/references/FORMULAS.md",
    ]);
    for (const entry of skill.resources) {
      const read = await result(worker, "resources/read", { uri: entry.uri });
      const [contents] = read.contents;
      expect(contents.mimeType).toBe("text/markdown");
      expect(await sha256(contents.text)).toBe(entry.digest);
      expect(new TextEncoder().encode(contents.text).byteLength).toBe(entry.size);
    }
  });

  it("lists SKILL.md in resources/list under the frontmatter's name and description, and not the supporting files", async () => {
    const { resources } = await result(worker, "resources/list");
    const skillMd = resources.filter((r: { uri: string }) => r.uri.startsWith("skill://"));
    expect(skillMd).toEqual([
      expect.objectContaining({ uri: "skill://unit-conversion/SKILL.md", name: "unit-conversion", mimeType: "text/markdown" }),
    ]);
    expect(skillMd[0].description).toBe(manifest.skills[0]!.frontmatter.description);
  });

  it("skills/get returns the listed entry, and -32602 for a URI it does not serve", async () => {
    const got = await result(worker, "skills/get", { uri: "skill://unit-conversion/SKILL.md" });
    expect(got.skill).toEqual(manifest.skills[0]);
    expect(got.nextCursor).toBeUndefined();
    expect((await rpc(worker, "skills/get", { uri: "skill://nope/SKILL.md" })).error?.code).toBe(-32602);
    expect((await rpc(worker, "skills/get", {})).error?.code).toBe(-32602);
  });

  it("resources/directory/read lists a folder's direct children, folders as inode/directory; a file is -32602", async () => {
    const dir = await result(worker, "resources/directory/read", { uri: "skill://unit-conversion" });
    expect(dir.resources).toEqual([
      expect.objectContaining({ uri: "skill://unit-conversion/SKILL.md", mimeType: "text/markdown" }),
      { uri: "skill://unit-conversion/references", name: "references", mimeType: "inode/directory" },
    ]);
    const file = await rpc(worker, "resources/directory/read", { uri: "skill://unit-conversion/SKILL.md" });
    expect(file.error?.code).toBe(-32602);
  });

  it("refuses a file whose bytes differ from the recorded digest (-32603), never serving it as the listed one", async () => {
    const stale = structuredClone(manifest) as SkillsManifest;
    stale.files["skill://unit-conversion/references/FORMULAS.md"]!.digest = `sha256:${"0".repeat(64)}`;
    const staleWorker = createMcpWorker(defineApp({ info: { name: "stale", version: "0" }, extensions: [skills(stale)] }));
    const read = await rpc(staleWorker, "resources/read", { uri: "skill://unit-conversion/references/FORMULAS.md" });
    expect(read.error?.code).toBe(-32603);
    expect(read.error?.message).toMatch(/changed since the build/);
    // The fix it names is one that exists: the build step wrangler runs (there is no build:assets script).
    expect(read.error?.message).toContain("node scripts/build-skills.mjs");
    expect(read.error?.message).not.toContain("build:assets");
  });
});

describe("MCP Apps views", () => {
  it("a host with the extension sees _meta.ui on the tools that have a view, both keys the official SDK writes", async () => {
    const { tools } = await result(worker, "tools/list", {}, UI_HOST);
    const byName = Object.fromEntries(tools.map((t: { name: string }) => [t.name, t]));
    expect(byName.measure._meta).toEqual({ ui: { resourceUri: "ui://probe/view.html" }, "ui/resourceUri": "ui://probe/view.html" });
    expect(byName.refresh._meta.ui).toEqual({ visibility: ["app"], resourceUri: "ui://probe/view.html" });
    expect(byName.plain._meta).toBeUndefined();
  });

  it("a host without the extension gets text-only tools: no _meta.ui, and no tool only a view may call", async () => {
    const { tools } = await result(worker, "tools/list");
    expect(tools.map((t: { name: string }) => t.name)).toEqual(["measure", "plain"]);
    for (const t of tools) expect(t._meta).toBeUndefined();
  });

  it("a client is an Apps host only if the extension's mimeTypes include text/html;profile=mcp-app: any other declaration gets text-only tools", async () => {
    const others = [{}, { mimeTypes: [] }, { mimeTypes: ["text/uri-list"] }, { mimeTypes: VIEW_MIME_TYPE }, { mimeTypes: ["text/html"] }];
    for (const settings of others) {
      const { tools } = await result(worker, "tools/list", {}, { extensions: { [UI_EXTENSION]: settings } });
      expect(
        tools.map((t: { name: string }) => t.name),
        JSON.stringify(settings),
      ).toEqual(["measure", "plain"]);
      for (const t of tools) expect(t._meta).toBeUndefined();
    }
    const host = await result(
      worker,
      "tools/list",
      {},
      { extensions: { [UI_EXTENSION]: { mimeTypes: ["text/uri-list", VIEW_MIME_TYPE] } } },
    );
    expect(host.tools.map((t: { name: string }) => t.name)).toEqual(["measure", "refresh", "plain"]);
  });

  it('a tool only a view may call (visibility ["app"]) is refused (-32602) to a client that is not an Apps host, and served to one that is', async () => {
    for (const capabilities of [{}, { extensions: { [UI_EXTENSION]: {} } }]) {
      const refused = await rpc(worker, "tools/call", { name: "refresh" }, capabilities);
      expect(refused.error?.code, JSON.stringify(capabilities)).toBe(-32602);
      expect(refused.error?.message).toBe("Unknown tool: refresh");
    }
    expect((await result(worker, "tools/call", { name: "refresh" }, UI_HOST)).content).toEqual([{ type: "text", text: "refreshed" }]);
    // A tool the model may call is served to every client.
    expect((await result(worker, "tools/call", { name: "measure", arguments: { celsius: 0 } })).structuredContent).toEqual({
      celsius: 0,
      kelvin: 273.15,
    });
  });

  it("lists tools for no cache to reuse: each host's list is private and immediately stale, so no cache hands one host's shape to another", async () => {
    // The client's capabilities are not part of a cache's key (method and params): a list that
    // depends on them must not be reused, neither the one a host with the extension gets nor the other.
    const withUi = await result(worker, "tools/list", {}, UI_HOST);
    const without = await result(worker, "tools/list");
    expect(withUi.tools.map((t: { name: string }) => t.name)).not.toEqual(without.tools.map((t: { name: string }) => t.name));
    for (const list of [withUi, without]) {
      expect(list.cacheScope).toBe("private");
      expect(list.ttlMs).toBe(0);
    }
    // The lists that do not vary by host stay public and cacheable.
    for (const method of ["resources/list", "server/discover"]) {
      const other = await result(worker, method, {}, UI_HOST);
      expect(other.cacheScope, method).toBe("public");
      expect(other.ttlMs, method).toBe(60_000);
    }
  });

  it("declares the extension, and the view's resource is read from the assets as text/html;profile=mcp-app with its csp and permissions", async () => {
    const { capabilities } = await result(worker, "server/discover");
    expect(capabilities.extensions[UI_EXTENSION]).toEqual({});
    const { resources } = await result(worker, "resources/list", {}, UI_HOST);
    const listed = resources.find((r: { uri: string }) => r.uri === "ui://probe/view.html");
    const ui = { csp: { connectDomains: ["https://api.example.test"] }, permissions: { clipboardWrite: {} }, prefersBorder: false };
    expect(listed).toEqual({ uri: "ui://probe/view.html", name: "probe", title: "Probe view", mimeType: VIEW_MIME_TYPE, _meta: { ui } });
    const read = await result(worker, "resources/read", { uri: "ui://probe/view.html" }, UI_HOST);
    expect(read.contents).toHaveLength(1);
    expect(read.contents[0]).toMatchObject({ uri: "ui://probe/view.html", mimeType: VIEW_MIME_TYPE, _meta: { ui } });
    expect(read.contents[0].text).toMatch(/^<!doctype html>/i);
    expect(read.contents[0].text).toContain('id="status"');
  });

  it("a view's tool answers with text for the model and structuredContent for the view", async () => {
    const call = await result(worker, "tools/call", { name: "measure", arguments: { celsius: 20 } }, UI_HOST);
    expect(call.structuredContent).toEqual({ celsius: 20, kelvin: 293.15 });
    expect(call.content[0]).toEqual({ type: "text", text: JSON.stringify({ celsius: 20, kelvin: 293.15 }) });
  });

  it("a view's URI must be ui://", () => {
    expect(() => defineView({ uri: "https://x/view.html", name: "x", asset: "/views/probe.html" })).toThrow(/ui:\/\//);
  });
});

describe("the client's Skills", () => {
  const connect = () =>
    McpClient.connect("http://localhost/mcp", {
      protocol: "2026-07-28",
      fetch: async (input, init) => {
        const ctx = createExecutionContext();
        const res = await worker.fetch(new Request(input, init), env as never, ctx);
        await waitOnExecutionContext(ctx);
        return res;
      },
    });

  it("loads a skill from this server, checked against its entry, and reads its other files only on request", async () => {
    const client = await connect();
    const {
      skills: [entry],
    } = await listSkills(client);
    const loaded = await loadSkill(client, entry!);
    expect(loaded.frontmatter).toEqual(entry!.frontmatter);
    expect(loaded.body).toMatch(/^\n# Unit conversion/);
    const formulas = await readSkillFile(client, entry!, "skill://unit-conversion/references/FORMULAS.md");
    expect(new TextDecoder().decode(formulas)).toContain("373.15 K");
  });

  it("refuses a SKILL.md whose frontmatter differs from the entry, and a file the entry does not list", async () => {
    const client = await connect();
    const {
      skills: [entry],
    } = await listSkills(client);
    const altered: SkillEntry = { ...entry!, frontmatter: { ...entry!.frontmatter, description: "Something else" } };
    await expect(loadSkill(client, altered)).rejects.toThrow(SkillVerificationError);
    const resized: SkillEntry = {
      ...entry!,
      resources: (entry!.resources as { uri: string; digest: string; size: number }[]).map((r) => ({ ...r, size: r.size + 1 })),
    };
    await expect(loadSkill(client, resized)).rejects.toThrow(/bytes, the entry lists/);
    await expect(readSkillFile(client, entry!, "skill://unit-conversion/OTHER.md")).rejects.toThrow(/is not a file of/);
  });

  it("reads frontmatter as a YAML parser does, and refuses what it does not read", () => {
    const samples = [
      "name: a\ndescription: plain text, with a comma\n",
      "name: 'it''s'\ndescription: \"quoted \\\"twice\\\"\" # comment\nversion: 1.5\nbeta: true\nnothing: null\n",
      "name: a\ndescription: >\n  folded over\n  two lines\nlicense: |-\n  MIT\n  line two\n",
      "name: a\nmetadata:\n  owner: team\n  tags:\n    - one\n    - 2\nallowed-tools:\n- Read\n- Bash\n",
    ];
    for (const yaml of samples) expect(readSkillMarkdown(`---\n${yaml}---\nbody`).frontmatter, yaml).toEqual(parseYaml(yaml));
    for (const unread of ["name: &x a\n", "name: [a, b]\n", "list:\n  - key: value\n", "name: a\nname: b\n", "\tname: a\n"])
      expect(() => readSkillMarkdown(`---\n${unread}---\n`), unread).toThrow();
  });
});

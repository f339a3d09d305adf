// Why: a skill entry (Skills extension) publishes each file's sha256 digest and size and the
// SKILL.md frontmatter as JSON, and hosts check every file they read against them. Computing that
// when the Worker starts would read every file on every cold start; so it is computed here, when
// wrangler builds (the `[build]` command in wrangler.toml), and written as a small JSON manifest the
// app imports. The files themselves are deployed as Static Assets and read through the binding.
//
//   node scripts/build-skills.mjs [assetsDir] [manifest]     (defaults: assets, src/skills.json)
//   node scripts/build-skills.mjs --check [assetsDir] [manifest]   fails if the manifest is stale
//
// A skill is a folder under <assetsDir>/skills holding a SKILL.md; its URI is skill://<folder>/SKILL.md.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const MIME = {
  ".md": "text/markdown",
  ".txt": "text/plain",
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".html": "text/html",
  ".css": "text/css",
  ".js": "text/javascript",
  ".py": "text/x-python",
  ".sh": "text/x-shellscript",
  ".csv": "text/csv",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".pdf": "application/pdf",
};
/** The Agent Skills naming rule, which the extension makes the last segment of the skill's URI follow. */
const NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
/**
 * The Skills extension's limits on one skill: a server SHOULD NOT serve a skill with more files or
 * more bytes than these, so a host may refuse it whole. The build refuses it first.
 */
const SKILL_MAX_FILES = 512;
const SKILL_MAX_BYTES = 16 * 1024 * 1024;

const digest = (bytes) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const byUri = (a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);

/** The frontmatter of a SKILL.md as JSON, exactly as a YAML parser reads it. */
function frontmatterOf(text, where) {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) throw new Error(`${where}: SKILL.md must begin with --- delimited YAML frontmatter`);
  const data = parse(m[1]);
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new Error(`${where}: the frontmatter must be a mapping`);
  for (const key of ["name", "description"])
    if (typeof data[key] !== "string" || data[key] === "") throw new Error(`${where}: the frontmatter needs a non-empty "${key}"`);
  return data;
}

/** Every file under dir, as paths relative to it with "/" separators, sorted. */
function walk(dir, rel = "") {
  return readdirSync(path.join(dir, rel), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(dir, `${rel}${e.name}/`) : e.isFile() ? [`${rel}${e.name}`] : []))
    .sort();
}

export function buildSkills(assetsDir) {
  const root = path.join(assetsDir, "skills");
  const manifest = { skills: [], files: {}, dirs: {} };
  if (!existsSync(root)) return manifest;
  const child = (parent, entry) => (manifest.dirs[parent] ??= []).push(entry);
  for (const name of readdirSync(root).sort()) {
    const dir = path.join(root, name);
    if (!statSync(dir).isDirectory()) continue;
    if (!existsSync(path.join(dir, "SKILL.md"))) throw new Error(`${dir}: a skill folder needs a SKILL.md`);
    if (!NAME.test(name)) throw new Error(`${dir}: a skill's folder name must be 1-64 of a-z 0-9 and single hyphens`);
    const uri = `skill://${name}/SKILL.md`;
    const frontmatter = frontmatterOf(readFileSync(path.join(dir, "SKILL.md"), "utf8"), dir);
    if (frontmatter.name !== name) throw new Error(`${dir}: the frontmatter name "${frontmatter.name}" must equal the folder name`);
    const resources = [];
    const files = walk(dir);
    if (files.length > SKILL_MAX_FILES)
      throw new Error(
        `skill "${name}" (${dir}) has ${files.length} files: a skill may have at most ${SKILL_MAX_FILES} (the Skills extension's limit)`,
      );
    let total = 0;
    for (const rel of files) total += statSync(path.join(dir, rel)).size;
    if (total > SKILL_MAX_BYTES)
      throw new Error(
        `skill "${name}" (${dir}) holds ${total} bytes: a skill may hold at most ${SKILL_MAX_BYTES} (16 MiB, the Skills extension's limit)`,
      );
    for (const rel of files) {
      const bytes = readFileSync(path.join(dir, rel));
      const fileUri = `skill://${name}/${rel}`;
      const file = {
        size: bytes.length,
        digest: digest(bytes),
        mimeType: MIME[path.extname(rel).toLowerCase()] ?? "application/octet-stream",
      };
      manifest.files[fileUri] = file;
      resources.push({ uri: fileUri, digest: file.digest, size: file.size });
      // Each folder on the way lists its direct children: files with their size, folders as inode/directory.
      const parts = rel.split("/");
      for (let i = 0; i < parts.length; i++) {
        const parent = `skill://${[name, ...parts.slice(0, i)].join("/")}`;
        const here = `${parent}/${parts[i]}`;
        const isFile = i === parts.length - 1;
        if (!isFile && manifest.dirs[parent]?.some((e) => e.uri === here)) continue;
        child(
          parent,
          isFile
            ? { uri: here, name: parts[i], mimeType: file.mimeType, size: file.size }
            : { uri: here, name: parts[i], mimeType: "inode/directory" },
        );
      }
    }
    manifest.skills.push({ uri, frontmatter, resources: resources.sort(byUri) });
  }
  for (const list of Object.values(manifest.dirs)) list.sort(byUri);
  return manifest;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const check = args[0] === "--check";
  const [assetsDir = "assets", out = "src/skills.json"] = check ? args.slice(1) : args;
  const text = `${JSON.stringify(buildSkills(assetsDir), null, 2)}\n`;
  if (check) {
    const current = existsSync(out) ? readFileSync(out, "utf8") : "";
    if (current !== text) {
      console.error(`${out} is stale: run \`node scripts/build-skills.mjs ${assetsDir} ${out}\` and commit it`);
      process.exit(1);
    }
  } else if (!existsSync(out) || readFileSync(out, "utf8") !== text) {
    // Written only when it changes, so `wrangler dev` does not see its own output as a change.
    writeFileSync(out, text);
  }
}

/**
 * Skills (the `io.modelcontextprotocol/skills` extension) as a host reads
 * them. Listing reads no file: a skill's files are fetched only when it is
 * loaded, and then each is checked against the entry the server listed —
 * its size, its `sha256:` digest, and for SKILL.md the frontmatter, field by
 * field — before anything of it is used. A skill that fails is not loaded,
 * and none of its other files are read. Functions, not client methods, so an
 * app without skills does not carry them.
 */
import type { McpClient } from "./client";
import { McpClientError } from "./errors";
import type { CallOptions } from "./lane";
import type { ResourceContents } from "./types";

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

export interface SkillFile {
  uri: string;
  digest?: string;
  size?: number;
}
export interface SkillEntry {
  /** The skill's SKILL.md. */
  uri: string;
  frontmatter: Record<string, unknown>;
  resources?: SkillFile[];
}

/** A page of the server's skills: entries only, no file is read. */
export async function listSkills(client: McpClient, cursor?: string, options?: CallOptions): Promise<{ skills: SkillEntry[]; nextCursor?: string }> {
  return client.request("skills/list", cursor !== undefined ? { cursor } : {}, options);
}

/** A skill whose SKILL.md passed every check; its other files are read (and checked) when asked for. */
export interface LoadedSkill {
  entry: SkillEntry;
  /** SKILL.md, as verified. */
  text: string;
  file(uri: string): Promise<string>;
}

/** Loads a skill: reads and verifies its SKILL.md; throws McpClientError if it does not match the entry. */
export async function loadSkill(client: McpClient, entry: SkillEntry, options?: CallOptions): Promise<LoadedSkill> {
  const text = await readVerified(client, entry, entry.uri, options);
  const found = frontmatter(text);
  for (const [key, value] of Object.entries(entry.frontmatter ?? {})) {
    if (found[key] !== String(value)) throw new McpClientError(`Skill ${entry.uri}: its frontmatter "${key}" differs from the listed entry; not loaded`);
  }
  return { entry, text, file: (uri) => readVerified(client, entry, uri, options) };
}

async function readVerified(client: McpClient, entry: SkillEntry, uri: string, options?: CallOptions): Promise<string> {
  const listed = (entry.resources ?? []).find((r) => r.uri === uri);
  if (!listed && uri !== entry.uri) throw new McpClientError(`Skill ${entry.uri} lists no file ${uri}`);
  const { contents } = await client.readResource(uri, options);
  const bytes = bytesOf(contents.find((c) => c.uri === uri) ?? contents[0]);
  if (listed?.size !== undefined && bytes.length !== listed.size) throw new McpClientError(`Skill file ${uri} is ${bytes.length} bytes, not the ${listed.size} listed; not used`);
  if (listed?.digest !== undefined) {
    const hex = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
    if (listed.digest.toLowerCase() !== `sha256:${hex}`) throw new McpClientError(`Skill file ${uri} does not match its listed digest; not used`);
  }
  return new TextDecoder().decode(bytes);
}

function bytesOf(content: ResourceContents | undefined): Uint8Array {
  if (content && "text" in content && typeof content.text === "string") return new TextEncoder().encode(content.text);
  if (content && "blob" in content && typeof content.blob === "string") return Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0));
  throw new McpClientError("The server read the skill file as nothing");
}

/** The `key: value` lines of a SKILL.md's leading `---` block (quotes removed). */
function frontmatter(text: string): Record<string, string> {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const out: Record<string, string> = {};
  for (const line of m?.[1]?.split(/\r?\n/) ?? []) {
    const kv = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(line);
    if (kv) out[kv[1]!] = kv[2]!.replace(/^(["'])(.*)\1$/, "$2");
  }
  return out;
}

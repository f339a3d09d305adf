/**
 * Skills (`io.modelcontextprotocol/skills`) from the client's side: list what a server offers, load
 * a skill only when it is needed (nothing is read ahead), and use no byte that does not match the
 * skill's entry: each file is checked against its listed size and sha256 digest, and a SKILL.md's
 * frontmatter against the entry's, field by field. A mismatch throws SkillVerificationError and
 * nothing of the file is returned. Imported on its own (`./client/skills`): a client that does not
 * use skills does not carry it.
 */
import type { McpClient } from "./client";
import type { CallOptions } from "./lane";
import { FrontmatterError, readSkillMarkdown } from "./frontmatter";

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

export interface SkillEntry {
  uri: string;
  frontmatter: { name: string; description: string; [key: string]: unknown };
  /** Every file with its digest and size, or "dynamic" when the server publishes no list. */
  resources: { uri: string; digest: string; size: number }[] | "dynamic";
}

export interface LoadedSkill {
  entry: SkillEntry;
  frontmatter: Record<string, unknown>;
  /** The instructions: SKILL.md after its frontmatter. */
  body: string;
}

export class SkillVerificationError extends Error {
  override readonly name = "SkillVerificationError";
  constructor(
    message: string,
    readonly uri: string,
  ) {
    super(message);
  }
}

/** One page of the server's skills (`skills/list`). Reads no file. */
export function listSkills(client: McpClient, cursor?: string, options?: CallOptions) {
  return client.request<{ skills: SkillEntry[]; nextCursor?: string }>("skills/list", cursor === undefined ? {} : { cursor }, options);
}

/** Reads a skill's SKILL.md, checked against its entry; the skill's other files are read with readSkillFile when needed. */
export async function loadSkill(client: McpClient, entry: SkillEntry, options?: CallOptions): Promise<LoadedSkill> {
  const text = new TextDecoder().decode(await readSkillFile(client, entry, entry.uri, options));
  let parsed: ReturnType<typeof readSkillMarkdown>;
  try {
    parsed = readSkillMarkdown(text);
  } catch (err) {
    if (err instanceof FrontmatterError) throw new SkillVerificationError(`${entry.uri}: ${err.message}`, entry.uri);
    throw err;
  }
  const keys = new Set([...Object.keys(parsed.frontmatter), ...Object.keys(entry.frontmatter)]);
  for (const key of keys)
    if (!sameJson(parsed.frontmatter[key], entry.frontmatter[key]))
      throw new SkillVerificationError(`${entry.uri}: the frontmatter's "${key}" differs from the skill's entry`, entry.uri);
  return { entry, frontmatter: parsed.frontmatter, body: parsed.body };
}

/** The bytes of one of a skill's files, checked against the entry's size and digest. */
export async function readSkillFile(client: McpClient, entry: SkillEntry, uri: string, options?: CallOptions): Promise<Uint8Array> {
  const listed = entry.resources === "dynamic" ? undefined : entry.resources.find((r) => r.uri === uri);
  if (entry.resources !== "dynamic" && !listed) throw new SkillVerificationError(`${uri} is not a file of ${entry.uri}`, uri);
  const { contents } = await client.readResource(uri, options);
  const part = contents.find((c) => c.uri === uri) ?? contents[0];
  if (!part) throw new SkillVerificationError(`${uri}: the server returned no contents`, uri);
  const bytes =
    "text" in part && typeof part.text === "string"
      ? new TextEncoder().encode(part.text)
      : Uint8Array.from(atob(String((part as { blob?: string }).blob ?? "")), (c) => c.charCodeAt(0));
  if (listed) {
    // A size that differs fails without hashing; otherwise the digest decides.
    if (bytes.byteLength !== listed.size)
      throw new SkillVerificationError(`${uri}: ${bytes.byteLength} bytes, the entry lists ${listed.size}`, uri);
    const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const digest = `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    if (digest !== listed.digest) throw new SkillVerificationError(`${uri}: its digest does not match the entry's`, uri);
  }
  return bytes;
}

/** Deep equality of JSON values, key order aside. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

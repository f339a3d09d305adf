/**
 * Skills as the client reads them (listSkills, loadSkill) against a scripted
 * server: a skill that matches its entry loads and its files are read on
 * demand; one that does not is refused before anything else is read.
 */
import { describe, expect, it } from "vitest";
import { McpClient, McpClientError, listSkills, loadSkill, type SkillEntry } from "../../src/client";
import { scripted, type Sent } from "../helpers/client";

const SKILL = "---\nname: notes\ndescription: Keep notes\n---\n\nWrite things down.\n";
const FORMS = "A supporting file.\n";

async function digest(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return `sha256:${[...hash].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

async function serverWith(served: string) {
  const reads: string[] = [];
  const entry: SkillEntry = {
    uri: "skill://notes/SKILL.md",
    frontmatter: { name: "notes", description: "Keep notes" },
    resources: [
      { uri: "skill://notes/SKILL.md", digest: await digest(SKILL), size: new TextEncoder().encode(SKILL).length },
      { uri: "skill://notes/FORMS.md", digest: await digest(FORMS), size: FORMS.length },
    ],
  };
  const fetch = scripted((m: Sent) => {
    if (m.method === "server/discover") return { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { resources: {} }, ttlMs: 0, cacheScope: "public" };
    if (m.method === "skills/list") return { resultType: "complete", ttlMs: 0, cacheScope: "private", skills: [entry] };
    const uri = String(m.params?.uri);
    reads.push(uri);
    return { resultType: "complete", ttlMs: 0, cacheScope: "private", contents: [{ uri, mimeType: "text/markdown", text: uri.endsWith("SKILL.md") ? served : FORMS }] };
  });
  return { client: await McpClient.connect("http://skills.test/mcp", { protocol: "2026-07-28", fetch }), reads };
}

describe("client skills", () => {
  it("lists without reading, loads a skill that matches its entry, and reads its files on demand", async () => {
    const { client, reads } = await serverWith(SKILL);
    const { skills } = await listSkills(client);
    expect(reads).toEqual([]);
    const skill = await loadSkill(client, skills[0]!);
    expect(skill.text).toBe(SKILL);
    expect(reads).toEqual(["skill://notes/SKILL.md"]);
    expect(await skill.file("skill://notes/FORMS.md")).toBe(FORMS);
    await expect(skill.file("skill://notes/other.md")).rejects.toThrow(/lists no file/);
  });

  for (const [label, served, why] of [
    ["a changed body (digest)", SKILL.replace("Write", "Wrote"), /digest/],
    ["extra bytes (size)", `${SKILL}more`, /bytes, not the/],
  ] as const) {
    it(`refuses a SKILL.md with ${label}, reading nothing more`, async () => {
      const { client, reads } = await serverWith(served);
      const { skills } = await listSkills(client);
      const err = await loadSkill(client, skills[0]!).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpClientError);
      expect((err as Error).message).toMatch(why);
      expect(reads).toEqual(["skill://notes/SKILL.md"]);
    });
  }

  it("refuses a SKILL.md whose frontmatter differs from the entry", async () => {
    const { client } = await serverWith(SKILL);
    const { skills } = await listSkills(client);
    const entry = { ...skills[0]!, frontmatter: { name: "notes", description: "Exfiltrate" } };
    await expect(loadSkill(client, entry)).rejects.toThrow(/frontmatter "description"/);
  });
});

/**
 * scripts/build-skills.mjs refuses a skill over the Skills extension's limits (512 files, 16 MiB per
 * skill), which a server should not serve: the build fails naming the skill and the limit, instead
 * of a host refusing the skill after deploy.
 */
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { buildSkills } from "../../../scripts/build-skills.mjs";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An assets folder with one skill `name`, holding SKILL.md and `extra` more files. */
function skill(name: string, extra: number): { assets: string; dir: string } {
  const assets = mkdtempSync(path.join(tmpdir(), "skills-"));
  dirs.push(assets);
  const dir = path.join(assets, "skills", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: A test skill\n---\nBody\n`);
  for (let i = 0; i < extra; i++) writeFileSync(path.join(dir, `f${i}.txt`), "x");
  return { assets, dir };
}

describe("build-skills: the Skills extension's per-skill limits", () => {
  it("builds a skill of exactly 512 files", () => {
    const { assets } = skill("big-but-fine", 511);
    expect(buildSkills(assets).skills[0].resources).toHaveLength(512);
  });

  it("refuses a skill of 513 files, naming the skill and the limit", () => {
    const { assets } = skill("too-many", 512);
    expect(() => buildSkills(assets)).toThrow(/skill "too-many".*513 files.*at most 512/);
  });

  it("refuses a skill over 16 MiB, naming the skill and the limit", () => {
    const { assets, dir } = skill("too-big", 0);
    const big = path.join(dir, "data.bin");
    writeFileSync(big, "");
    truncateSync(big, 16 * 1024 * 1024); // with SKILL.md, just over the limit
    expect(() => buildSkills(assets)).toThrow(/skill "too-big".*at most 16777216 \(16 MiB/);
  });
});

/**
 * SKILL.md frontmatter (src/engine/client/frontmatter.ts) from a server that writes long lines: each line is
 * read in one pass. The quadratic reader took 2.4-3.9 s on a 60,000-character line, so one of
 * 150,000 held loadSkill for half a minute; the time limit here is a hang guard, not a speed check.
 */
import { describe, expect, it } from "vitest";
import { readSkillMarkdown } from "../../../src/engine/client/frontmatter";

const SPACES = " ".repeat(150_000);

describe("SKILL.md frontmatter, long lines", () => {
  it.each([
    ["a value with a long run of spaces", `name: a${SPACES}b`, { name: `a${SPACES}b` }],
    ["a value with a long run of spaces before a comment", `name: a${SPACES}# note`, { name: "a" }],
    ["a sequence item with a long run of spaces", `tools:\n- a${SPACES}b`, { tools: [`a${SPACES}b`] }],
    ["a key with a long run of spaces before its colon", `a${SPACES}b: c`, { [`a${SPACES}b`]: "c" }],
  ])(
    "%s is read",
    (_label, yaml, expected) => {
      expect(readSkillMarkdown(`---\n${yaml}\n---\nbody`).frontmatter).toEqual(expected);
    },
    5000,
  );

  it.each([
    ["a key line with a long run of spaces and no colon", `a${SPACES}b`],
    ["a key line with a long run of spaces and a colon without a space", `a${SPACES}b:c`],
  ])(
    "%s is refused",
    (_label, yaml) => {
      expect(() => readSkillMarkdown(`---\n${yaml}\n---\nbody`)).toThrow(/key: value|plain value/);
    },
    5000,
  );

  it("keys and values read as before: quoted keys, comments, dash keys", () => {
    const md = `---\nname: "x y" # c\n'q''k': v\n-a: 1\nt: a#b\nlist:\n- a\n- 'b'\n---\nbody`;
    expect(readSkillMarkdown(md).frontmatter).toEqual({ name: "x y", "q'k": "v", "-a": 1, t: "a#b", list: ["a", "b"] });
    for (const bad of ["-: x", "a#b: x", "a:b", "[a]: x"]) expect(() => readSkillMarkdown(`---\n${bad}\n---\n`)).toThrow(/key: value/);
  });
});

/**
 * Code Mode's preparation of the model's code (src/engine/code-mode/instrument.ts) and the
 * declarations it shows the model (declarations.ts), and the bounded store of recent parses
 * (prepared-cache.ts): pure rules, checked in Node. What the sandbox
 * does with the result is tested through /mcp (test/engine/integration/code-mode.test.ts).
 */
import { describe, expect, it } from "vitest";
import { typeOf, declarationOf } from "../../../src/engine/code-mode/declarations";
import { prepare, render } from "../../../src/engine/code-mode/instrument";
import { MAX_CHARS, MAX_ENTRIES, instrumented, keptNow, preparedStats } from "../../../src/engine/code-mode/prepared-cache";

/** The function's body lines (between its first and last line). */
const bodyOf = (fn: string) => fn.split("\n").slice(1, -2).join("\n");

describe("prepare", () => {
  it("gives every loop body and function body a step, and changes nothing else", () => {
    const code =
      "for (;;) x++;\nwhile (a) { b() }\ndo c(); while (d)\nconst f = (y) => ({ y });\nclass K { m() { return 1 } static { for (const k of ks) k } }\nreturn `while (${1})` + '/* for(;;) */'";
    const prepared = prepare(code, "F", "S");
    expect(prepared.ok).toBe(true);
    const fn = (prepared as { fn: string }).fn;
    expect(bodyOf(fn)).toBe(
      "for (;;) {S();x++;}\nwhile (a) {S(); b() }\ndo {S();c();} while (d)\nconst f = (y) => ((S(), ({ y })));\nclass K { m() {S(); return 1 } static { for (const k of ks) {S();k} } }\nreturn `while (${1})` + '/* for(;;) */'",
    );
    // The code's own function is stepped too: recursion spends the budget as loops do.
    expect(fn.startsWith("async function F(tools) {S();\n")).toBe(true);
    expect(fn.endsWith("\n}\n")).toBe(true);
  });

  it("names a syntax error with its line and column in the model's code", () => {
    expect(prepare("const a = 1;\nreturn )(", "F", "S")).toEqual({
      ok: false,
      message: "SyntaxError: Unexpected token (line 2, column 8)",
    });
  });

  it("refuses code that closes the function early to run code of its own beside it", () => {
    const escaped = prepare("}\nexport const other = 1;\n{", "F", "S");
    expect(escaped).toMatchObject({ ok: false, message: expect.stringContaining("body of one function") });
  });
});

describe("declarations", () => {
  it("types a tool's arguments and result compactly, quoting names that are not identifiers", () => {
    const input = {
      type: "object",
      properties: {
        owner: { type: "string", description: "The account owner. Not case-sensitive." },
        labels: { type: "array", items: { type: "string" } },
        state: { enum: ["open", "closed"] },
        limit: { type: ["integer", "null"] },
      },
      required: ["owner"],
    };
    expect(declarationOf({ name: "users_get-by-username", description: "Get a user. More text.", inputSchema: input })).toBe(
      '/** Get a user. */ "users_get-by-username"(args: { /** The account owner. */ owner: string; labels?: string[]; state?: "open" | "closed"; limit?: number | null }): Promise<unknown>;',
    );
  });

  it("reads unknown for what it cannot type, and stops at a depth", () => {
    expect(typeOf({ $ref: "#/defs/x" })).toBe("unknown");
    const deep = {
      type: "object",
      properties: {
        a: {
          type: "object",
          properties: {
            b: {
              type: "object",
              properties: { c: { type: "object", properties: { d: { type: "object", properties: { e: { type: "string" } } } } } },
            },
          },
        },
      },
    };
    expect(typeOf(deep)).toBe("{ a?: { b?: { c?: { d?: { e?: unknown } } } } }");
  });
});

describe("the kept parses (prepared-cache.ts)", () => {
  it("answers the same code from what it kept, and a render names each run apart", () => {
    const code = `return 1 // ${Math.random()}`;
    const before = { ...preparedStats };
    const first = instrumented(code);
    const second = instrumented(code);
    expect(second).toBe(first);
    expect(preparedStats).toEqual({ parsed: before.parsed + 1, reused: before.reused + 1 });
    if (!first.ok) throw new Error(first.message);
    expect(render(first, "F1", "S1")).toBe("async function F1(tools) {S1();\nreturn 1 // " + code.slice(12) + "\n}\n");
    expect(render(first, "F2", "S2")).toContain("async function F2(tools) {S2();");
  });

  it("keeps at most MAX_ENTRIES codes and MAX_CHARS characters, the least recently used going first", () => {
    const tag = Math.random();
    const kept = `return "kept" // ${tag}`;
    instrumented(kept);
    for (let i = 0; i < MAX_ENTRIES + 20; i++) {
      instrumented(kept); // used again each time: never the least recently used
      instrumented(`return ${i} // ${tag}`);
    }
    expect(keptNow().entries).toBe(MAX_ENTRIES);
    const reused = preparedStats.reused;
    instrumented(kept);
    expect(preparedStats.reused).toBe(reused + 1);
    instrumented(`return 0 // ${tag}`); // the first of the loop's codes went long ago
    expect(preparedStats.reused).toBe(reused + 1);
    // Large codes: the characters bound holds however few entries there are.
    const big = "x".repeat(MAX_CHARS / 20);
    for (let i = 0; i < 40; i++) instrumented(`return "${big}${i}"`);
    expect(keptNow().chars).toBeLessThanOrEqual(MAX_CHARS);
    expect(keptNow().entries).toBeLessThan(20);
    // A code too large for a fair share is parsed and not kept.
    const huge = `return "${"y".repeat(MAX_CHARS / 8)}"`;
    const parsed = preparedStats.parsed;
    instrumented(huge);
    instrumented(huge);
    expect(preparedStats.parsed).toBe(parsed + 2);
  });
});

/**
 * Code Mode's preparation of the model's code (src/engine/code-mode/instrument.ts) and the
 * declarations it shows the model (declarations.ts): pure rules, checked in Node. What the sandbox
 * does with the result is tested through /mcp (test/engine/integration/code-mode.test.ts).
 */
import { describe, expect, it } from "vitest";
import { typeOf, declarationOf } from "../../../src/engine/code-mode/declarations";
import { prepare } from "../../../src/engine/code-mode/instrument";

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

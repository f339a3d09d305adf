/**
 * base64url (src/engine/mcp/base64url.ts) against the platform's base64 (Node's Buffer): the same text for
 * any bytes, and exactly the canonical spellings accepted. A sealed id or request state that decodes
 * from a second spelling would let a client vary a sealed value the MAC was not computed over.
 */
import { describe, expect, it } from "vitest";
import { fromBase64url, toBase64url } from "../../../src/engine/mcp/base64url";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** The reference: Buffer decodes leniently, so a spelling is canonical when encoding its bytes gives it back. */
function reference(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes.toString("hex") : undefined;
}

function decoded(text: string): string | undefined {
  try {
    return Buffer.from(fromBase64url(text)).toString("hex");
  } catch {
    return undefined;
  }
}

describe("base64url", () => {
  it("encodes any bytes as Buffer's base64url does", () => {
    for (let length = 0; length < 70; length++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      expect(toBase64url(bytes)).toBe(Buffer.from(bytes).toString("base64url"));
    }
    expect(toBase64url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe("-_-_");
  });

  it("decodes every canonical spelling of up to three characters, and refuses every other one", () => {
    const chars = [...ALPHABET, "+", "/", "=", " ", "é"];
    let accepted = 0;
    const wrong: string[] = [];
    const check = (text: string) => {
      const want = reference(text);
      if (decoded(text) !== want) wrong.push(text);
      if (want !== undefined) accepted++;
    };
    check("");
    for (const a of chars) {
      check(a);
      for (const b of chars) {
        check(a + b);
        for (const c of chars) check(a + b + c);
      }
    }
    expect(wrong).toEqual([]);
    // 1 + 64 × 4 two-character spellings (4 bits free) + 64 × 64 × 16 three-character ones (2 bits free).
    expect(accepted).toBe(1 + 64 * 4 + 64 * 64 * 16);
  });

  it("decodes what it encodes, and refuses a changed last character or padding", () => {
    for (let length = 1; length < 70; length++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      const text = toBase64url(bytes);
      expect(fromBase64url(text)).toEqual(bytes);
      expect(() => fromBase64url(`${text}=`)).toThrow();
      if (length % 3 !== 0) {
        const last = ALPHABET.indexOf(text.at(-1)!);
        expect(() => fromBase64url(text.slice(0, -1) + ALPHABET[last + 1 < 64 ? last + 1 : last - 1])).toThrow();
      }
    }
  });
});

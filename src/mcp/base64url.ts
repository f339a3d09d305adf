/** base64url without padding (RFC 4648 §5): for session ids and sealed state, safe in headers and JSON. */

export function toBase64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Throws on anything that is not the canonical base64url of some bytes: no padding, no `+` or `/`,
 * no whitespace, and no stray bits in the last character (what `toBase64url` gives is the only
 * spelling that decodes). `atob` alone is forgiving about all of these.
 */
export function fromBase64url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("not base64url");
  const bytes = Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  if (toBase64url(bytes) !== text) throw new Error("not canonical base64url");
  return bytes;
}

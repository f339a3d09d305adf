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
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  // A plain loop: a mapped Uint8Array.from and encoding every byte again cost ten times as much.
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  // Whole groups of four characters have one spelling each; only a shorter last group (one or two
  // bytes) has bits to spare, so it alone is encoded again and compared.
  const tail = text.length % 4;
  if (tail > 0 && toBase64url(bytes.subarray(bytes.length - tail + 1)) !== text.slice(-tail)) throw new Error("not canonical base64url");
  return bytes;
}

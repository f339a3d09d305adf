/**
 * JWS Compact Serialization verification (RFC 7515) with WebCrypto: the protected header,
 * the one key it selects, and the signature over `header.payload`. Returns the payload bytes.
 */
import { fromBase64url } from "../mcp/base64url";
import { isPlainObject, type KeyResolver } from "./jwks";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const ascii = new TextEncoder();

function decode(part: string, what: string): Uint8Array {
  try {
    return fromBase64url(part);
  } catch {
    throw new Error(`Failed to base64url decode the ${what}`);
  }
}

/** Parses base64url JSON that must be an object (the header; the JWT claims set). */
export function jsonObject(bytes: Uint8Array, message: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch {
    throw new Error(message);
  }
  if (!isPlainObject(parsed)) throw new Error(message);
  return parsed;
}

export async function verifyCompact(token: string, keys: KeyResolver): Promise<Uint8Array> {
  const parts = token.split(".");
  if (parts.length !== 3) throw new Error("Invalid Compact JWS");
  const [head, body, sig] = parts as [string, string, string];
  const header = jsonObject(decode(head, "protected header"), "JWS Protected Header is invalid");
  // "crit" (§4.1.11): the only extension a JWT may name is b64, and then only as true (a JWT
  // payload is always base64url); any other critical extension is one we do not understand.
  if (header.crit !== undefined) {
    const crit = header.crit;
    if (!Array.isArray(crit) || crit.length === 0 || crit.some((c) => typeof c !== "string" || c === ""))
      throw new Error('"crit" (Critical) Header Parameter MUST be an array of non-empty strings when present');
    for (const name of crit) {
      if (name !== "b64") throw new Error(`Extension Header Parameter "${name}" is not recognized`);
      if (header.b64 === undefined) throw new Error(`Extension Header Parameter "${name}" is missing`);
    }
    if (typeof header.b64 !== "boolean") throw new Error('The "b64" (base64url-encode payload) Header Parameter must be a boolean');
    if (header.b64 === false) throw new Error("JWTs MUST NOT use unencoded payload");
  }
  if (typeof header.alg !== "string" || header.alg === "") throw new Error('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  const { key, algorithm } = await keys(header);
  // RFC 7518 §3.3 and §3.5: RSA keys of at least 2048 bits.
  const bits = (key.algorithm as CryptoKeyRsaKeyAlgorithm).modulusLength;
  if (algorithm.kty === "RSA" && !(typeof bits === "number" && bits >= 2048)) throw new Error(`${header.alg} requires key modulusLength to be 2048 bits or larger`);
  const signature = decode(sig, "signature");
  const payload = decode(body, "payload");
  let ok = false;
  try {
    ok = await crypto.subtle.verify(algorithm.verify, key, signature, ascii.encode(`${head}.${body}`));
  } catch {
    ok = false;
  }
  if (!ok) throw new Error("signature verification failed");
  return payload;
}

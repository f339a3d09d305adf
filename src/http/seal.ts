/**
 * Sealed requestState for multi round-trip requests (2026-07-28). The client
 * carries our state between rounds, so it is attacker-controlled: it is
 * signed with HMAC-SHA256 (WebCrypto) and bound to the method, the target
 * (tool/prompt name or resource URI), a digest of the request's key
 * parameters, the principal and an expiry. The MAC covers the payload bytes,
 * not their text, so only the one canonical base64url spelling of a state is
 * accepted: a state has exactly one form that opens.
 */
import { ErrorCode, McpError, invalidParams } from "../mcp/errors";
import type { Json } from "../mcp/types";
import { fromBase64url, toBase64url } from "../mcp/base64url";

export interface SealedState {
  /** method */
  m: string;
  /** target name or URI */
  t: string;
  /** principal, "" when anonymous */
  p: string;
  /** digest of the key parameters (arguments, or the URI) */
  d: string;
  /** expiry, epoch seconds */
  e: number;
  /** answers gathered in earlier rounds */
  a: Record<string, unknown>;
  /** input keys asked in the last round → their method, to validate the answers */
  k: Record<string, string>;
  /** the handler's own state */
  s?: Json;
}

/**
 * The longest requestState this server issues or opens, in characters. One limit for both sides: a
 * state the server would refuse on the retry is refused when it would be sealed instead.
 */
export const MAX_REQUEST_STATE_LENGTH = 64 * 1024;

/** Sealing would produce a state over MAX_REQUEST_STATE_LENGTH; the caller says whose fault it is. */
export class RequestStateTooLarge extends Error {
  constructor(readonly length: number) {
    super(`requestState would be ${length} characters, over ${MAX_REQUEST_STATE_LENGTH}`);
    this.name = "RequestStateTooLarge";
  }
}

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

export function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    keys.set(secret, key);
  }
  return key;
}


export const MISSING_SECRET = "MCP_STATE_SECRET is not set: run `wrangler secret put MCP_STATE_SECRET` (or add it to .dev.vars locally)";

/** The error of a 2026 input round that cannot be sealed: the server's configuration, not the request. */
export const missingSecret = () => new McpError(ErrorCode.InternalError, MISSING_SECRET);

function requireSecret(secret: string | undefined): string {
  if (!secret) throw missingSecret();
  return secret;
}

export async function seal(state: SealedState, secret: string | undefined): Promise<string> {
  const payload = encoder.encode(JSON.stringify(state));
  // base64url makes 4 characters of 3 bytes, and the MAC part is 43: check before signing anything.
  const length = Math.ceil((payload.length * 4) / 3) + 44;
  if (length > MAX_REQUEST_STATE_LENGTH) throw new RequestStateTooLarge(length);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(requireSecret(secret)), payload));
  return `${toBase64url(payload)}.${toBase64url(mac)}`;
}

const invalidState = (why: string) => invalidParams(`Invalid requestState: ${why}`);

/** Verifies and opens a requestState; -32602 for anything forged, foreign or expired. */
export async function unseal(
  token: unknown,
  expect: { method: string; target: string; principal: string; digest: string },
  secret: string | undefined,
  now = Date.now() / 1000,
): Promise<SealedState> {
  if (typeof token !== "string" || token.length > MAX_REQUEST_STATE_LENGTH) throw invalidState("not a state this server issued");
  const [payloadPart, macPart, extra] = token.split(".");
  if (!payloadPart || !macPart || extra !== undefined) throw invalidState("not a state this server issued");
  let payload: Uint8Array, mac: Uint8Array;
  try {
    payload = fromBase64url(payloadPart);
    mac = fromBase64url(macPart);
  } catch {
    throw invalidState("not a state this server issued");
  }
  const ok = await crypto.subtle.verify("HMAC", await hmacKey(requireSecret(secret)), mac, payload);
  if (!ok) throw invalidState("signature check failed");
  const state = JSON.parse(new TextDecoder().decode(payload)) as SealedState;
  if (state.m !== expect.method || state.t !== expect.target) throw invalidState("issued for a different request");
  if (state.d !== expect.digest) throw invalidState("issued for different arguments; send the original arguments with it");
  if (state.p !== expect.principal) throw invalidState("issued to a different principal");
  if (state.e < now) throw invalidState("expired; start the request again");
  return state;
}

/**
 * Sealed requestState for multi round-trip requests (2026-07-28). The client
 * carries our state between rounds, so it is attacker-controlled: it is
 * signed with HMAC-SHA256 (WebCrypto) and bound to the method, the target
 * (tool/prompt name or resource URI), a digest of the request's key
 * parameters, the principal and an expiry. The MAC covers the payload bytes,
 * not their text, so only the one canonical base64url spelling of a state is
 * accepted: a state has exactly one form that opens.
 *
 * Keys: each purpose (session ids, request states) has its own key, derived
 * from MCP_STATE_SECRET with HKDF, so a seal made for one never opens as the
 * other. Every seal names the secret it was made with by a short key id, so
 * the secret can be rotated: MCP_STATE_SECRET_PREVIOUS still opens what the
 * old secret sealed (sessions, states in flight), and nothing new is sealed with it.
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

/** The secrets seals are made and opened with (the settings' names): new seals use the current one only. */
export interface StateSecrets {
  stateSecret?: string;
  stateSecretPrevious?: string;
}

/** What a key seals: session ids, or 2026 requestStates. */
type Purpose = "session-id" | "request-state";

interface Keyring {
  /** Four base64url characters that name the secret in every seal it makes. */
  kid: string;
  keys: Record<Purpose, CryptoKey>;
  /** AES-CTR: what a session id carries is encrypted, so that logs that keep ids learn nothing of the client. */
  record: CryptoKey;
}

/** Every seal's tail, `.<kid>.<mac>`: 1 + 4 + 1 + 43 characters. */
export const SEAL_TAIL_LENGTH = 49;

const keyrings = new Map<string, Promise<Keyring>>();

function keyringOf(secret: string): Promise<Keyring> {
  let ring = keyrings.get(secret);
  if (!ring) {
    ring = deriveKeyring(secret);
    keyrings.set(secret, ring);
  }
  return ring;
}

async function deriveKeyring(secret: string): Promise<Keyring> {
  const base = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey", "deriveBits"]);
  const hkdf = (info: string) => ({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(`mcp ${info}`) });
  const derive = (purpose: Purpose) =>
    crypto.subtle.deriveKey(hkdf(purpose), base, { name: "HMAC", hash: "SHA-256", length: 256 }, false, ["sign", "verify"]);
  const [id, session, state, record] = await Promise.all([
    crypto.subtle.deriveBits(hkdf("key id"), base, 24),
    derive("session-id"),
    derive("request-state"),
    crypto.subtle.deriveKey(hkdf("session record"), base, { name: "AES-CTR", length: 256 }, false, ["encrypt", "decrypt"]),
  ]);
  return { kid: toBase64url(new Uint8Array(id)), keys: { "session-id": session, "request-state": state }, record };
}

/** The keyring of the secret `kid` names (the current or the previous one); with no kid, the current one's. */
async function ringOf(secrets: StateSecrets, kid?: string): Promise<Keyring | undefined> {
  for (const secret of kid === undefined ? [requireSecret(secrets.stateSecret)] : [secrets.stateSecret, secrets.stateSecretPrevious]) {
    if (!secret) continue;
    const ring = await keyringOf(secret);
    if (kid === undefined || ring.kid === kid) return ring;
  }
  return undefined;
}

/**
 * Encrypts (or decrypts: AES-CTR is its own inverse) what a session id carries, with the key of the
 * secret `kid` names (the current one when absent). The counter block is the session's name, 256
 * random bits of which the first 128 are used, so no two sessions share a keystream; the MAC over
 * the encrypted text keeps it from being altered. Decrypt only what verified, so the kid is known.
 */
export async function cryptRecord(secrets: StateSecrets, kid: string | undefined, name: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const ring = (await ringOf(secrets, kid))!;
  return new Uint8Array(await crypto.subtle.encrypt({ name: "AES-CTR", counter: name.slice(0, 16), length: 64 }, ring.record, data));
}

/** Signs with the current secret's key for `purpose`: `.<kid>.<mac>`, what every seal ends with. */
export async function sign(secrets: StateSecrets, purpose: Purpose, data: Uint8Array): Promise<string> {
  const ring = (await ringOf(secrets))!;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", ring.keys[purpose], data));
  return `.${ring.kid}.${toBase64url(mac)}`;
}

/** Whether `mac` is the MAC of `data` for `purpose` under the secret `kid` names (the current or the previous one). */
export async function verify(secrets: StateSecrets, purpose: Purpose, kid: string, macPart: string, data: Uint8Array): Promise<boolean> {
  const ring = await ringOf(secrets, kid);
  if (!ring) return false;
  let mac: Uint8Array;
  try {
    mac = fromBase64url(macPart);
  } catch {
    return false;
  }
  return crypto.subtle.verify("HMAC", ring.keys[purpose], mac, data);
}

export const MISSING_SECRET = "MCP_STATE_SECRET is not set: run `wrangler secret put MCP_STATE_SECRET` (or add it to .dev.vars locally)";

/** The error of a 2026 input round that cannot be sealed: the server's configuration, not the request. */
export const missingSecret = () => new McpError(ErrorCode.InternalError, MISSING_SECRET);

function requireSecret(secret: string | undefined): string {
  if (!secret) throw missingSecret();
  return secret;
}

export async function seal(state: SealedState, secrets: StateSecrets): Promise<string> {
  requireSecret(secrets.stateSecret);
  const payload = encoder.encode(JSON.stringify(state));
  // base64url makes 4 characters of 3 bytes, and the tail is fixed: check before signing anything.
  const length = Math.ceil((payload.length * 4) / 3) + SEAL_TAIL_LENGTH;
  if (length > MAX_REQUEST_STATE_LENGTH) throw new RequestStateTooLarge(length);
  return `${toBase64url(payload)}${await sign(secrets, "request-state", payload)}`;
}

const invalidState = (why: string) => invalidParams(`Invalid requestState: ${why}`);

/** Verifies and opens a requestState; -32602 for anything forged, foreign or expired. */
export async function unseal(
  token: unknown,
  expect: { method: string; target: string; principal: string; digest: string },
  secrets: StateSecrets,
): Promise<SealedState> {
  requireSecret(secrets.stateSecret);
  if (typeof token !== "string" || token.length > MAX_REQUEST_STATE_LENGTH) throw invalidState("not a state this server issued");
  const [payloadPart, kid, macPart, extra] = token.split(".");
  if (!payloadPart || !kid || !macPart || extra !== undefined) throw invalidState("not a state this server issued");
  let payload: Uint8Array;
  try {
    payload = fromBase64url(payloadPart);
  } catch {
    throw invalidState("not a state this server issued");
  }
  // A state sealed with a secret that is neither the current nor the previous one fails here too.
  if (!(await verify(secrets, "request-state", kid, macPart, payload))) throw invalidState("signature check failed");
  const state = JSON.parse(new TextDecoder().decode(payload)) as SealedState;
  if (state.m !== expect.method || state.t !== expect.target) throw invalidState("issued for a different request");
  if (state.d !== expect.digest) throw invalidState("issued for different arguments; send the original arguments with it");
  if (state.p !== expect.principal) throw invalidState("issued to a different principal");
  if (state.e < Date.now() / 1000) throw invalidState("expired; start the request again");
  return state;
}

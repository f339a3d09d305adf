/**
 * Sealed 2025 session ids: `<name>.<record>.<kid>.<mac>`. The name is 256 random
 * bits (the session object's name); the record is what `initialize`
 * negotiated (revision, client capabilities and info, the anonymous client's
 * key, when it was issued), encrypted (AES-CTR, seal.ts), since ids end up in
 * proxies' and clients' logs; the MAC (HMAC-SHA256 with the session-id key of
 * the secret the key id names, seal.ts) covers
 * name and record as sent, and the principal, which is never written into the
 * id. So a session needs no storage to exist: its object rebuilds it from the
 * id on every request, and writes only once the session holds state. A forged
 * id, another principal's id, or one past SESSION_MAX_SECONDS is 404 here,
 * before any object is asked.
 */
import { fromBase64url, toBase64url } from "../mcp/base64url";
import type { ClientCapabilities, Implementation } from "../mcp/types";
import { isSessionId, newSessionId } from "../objects/addresses";
import type { SessionStart } from "../objects/contracts";
import { SEAL_TAIL_LENGTH, cryptRecord, sign, verify, type StateSecrets } from "./seal";

/** What the id carries; short keys, since it rides in a header on every request. */
interface SessionRecord {
  v: string;
  c: ClientCapabilities;
  i?: Implementation;
  k?: string;
  /** issued at, epoch milliseconds */
  t: number;
}

/**
 * Longer ids are not issued: a client whose capabilities and info do not fit gets a plain id and a
 * session stored from the start, so nothing it sent is ever cut short.
 */
export const MAX_SEALED_ID_LENGTH = 1536;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const signed = (nameAndRecord: string, principal: string) => encoder.encode(`${nameAndRecord}\n${principal}`);

/** The sealed id for a new session; undefined when it cannot be sealed (no secret, or too long). */
export async function sealSessionId(start: Omit<SessionStart, "sessionId">, secrets: StateSecrets): Promise<string | undefined> {
  if (!secrets.stateSecret) return undefined;
  // JSON leaves out the members that are undefined (no client info, or no client key).
  const record: SessionRecord = {
    v: start.protocolVersion,
    c: start.clientCapabilities,
    i: start.clientInfo,
    k: start.clientKey,
    t: start.createdAt,
  };
  const plain = encoder.encode(JSON.stringify(record));
  // Encrypting keeps the length; the name, the dot and the key id and MAC are fixed: check before any work.
  if (44 + Math.ceil((plain.length * 4) / 3) + SEAL_TAIL_LENGTH > MAX_SEALED_ID_LENGTH) return undefined;
  const name = newSessionId();
  const body = `${name}.${toBase64url(await cryptRecord(secrets, undefined, fromBase64url(name), plain))}`;
  return `${body}${await sign(secrets, "session-id", signed(body, start.principal))}`;
}

/**
 * The ids this isolate has opened, for each set of secrets (the settings object of one env): every
 * request of a session brings the same id, so its MAC, record and JSON are checked once here rather
 * than on each request. Only ids that verified are kept, with the principal they verified for; the
 * age is checked on every request. Bounded like the other per-isolate caches: when full, it starts
 * again.
 */
const opened = new WeakMap<StateSecrets, Map<string, SessionStart>>();
const MAX_OPENED = 1000;

/**
 * Opens a sealed id for this principal: what `initialize` negotiated, or null when it is not a
 * live session id of ours for this caller (the 404 of an unknown session).
 */
export async function openSessionId(
  id: string,
  principal: string,
  secrets: StateSecrets,
  maxAgeMs: number,
  now = Date.now(),
): Promise<SessionStart | null> {
  if (id.length > MAX_SEALED_ID_LENGTH) return null;
  let known = opened.get(secrets);
  if (!known) opened.set(secrets, (known = new Map()));
  let start = known.get(id);
  if (start?.principal !== principal) {
    start = await verifiedStart(id, principal, secrets);
    if (!start) return null;
    if (known.size >= MAX_OPENED) known.clear();
    known.set(id, start);
  }
  return now < start.createdAt + maxAgeMs ? start : null;
}

/** What a sealed id says, once its MAC is checked for this principal; undefined when it is not ours. */
async function verifiedStart(id: string, principal: string, secrets: StateSecrets): Promise<SessionStart | undefined> {
  const [name, recordPart, kid, macPart, extra] = id.split(".");
  if (!name || !recordPart || !kid || !macPart || extra !== undefined || !isSessionId(name)) return undefined;
  // The MAC covers the text as sent, so only the spelling we issued opens; an unknown key id opens nothing.
  if (!(await verify(secrets, "session-id", kid, macPart, signed(`${name}.${recordPart}`, principal)))) return undefined;
  const record = JSON.parse(
    decoder.decode(await cryptRecord(secrets, kid, fromBase64url(name), fromBase64url(recordPart))),
  ) as SessionRecord;
  return {
    sessionId: id,
    principal,
    protocolVersion: record.v,
    clientCapabilities: record.c,
    ...(record.i === undefined ? {} : { clientInfo: record.i }),
    ...(record.k === undefined ? {} : { clientKey: record.k }),
    createdAt: record.t,
  };
}

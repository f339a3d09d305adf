/**
 * Sealed 2025 session ids: `<name>.<record>.<mac>`. The name is 256 random
 * bits (the session object's name); the record is what `initialize`
 * negotiated (revision, client capabilities and info, the anonymous client's
 * key, when it was issued); the MAC (HMAC-SHA256 with MCP_STATE_SECRET) covers
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
import { hmacKey } from "./seal";

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
const signed = (nameAndRecord: string, principal: string) => encoder.encode(`${nameAndRecord}\n${principal}`);

/** The sealed id for a new session; undefined when it cannot be sealed (no secret, or too long). */
export async function sealSessionId(start: Omit<SessionStart, "sessionId">, secret: string | undefined): Promise<string | undefined> {
  if (!secret) return undefined;
  const record: SessionRecord = {
    v: start.protocolVersion,
    c: start.clientCapabilities,
    ...(start.clientInfo === undefined ? {} : { i: start.clientInfo }),
    ...(start.clientKey === undefined ? {} : { k: start.clientKey }),
    t: start.createdAt,
  };
  const body = `${newSessionId()}.${toBase64url(encoder.encode(JSON.stringify(record)))}`;
  // The MAC adds 44 characters: check before signing anything.
  if (body.length + 44 > MAX_SEALED_ID_LENGTH) return undefined;
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), signed(body, start.principal)));
  return `${body}.${toBase64url(mac)}`;
}

/**
 * Opens a sealed id for this principal: what `initialize` negotiated, or null when it is not a
 * live session id of ours for this caller (the 404 of an unknown session).
 */
export async function openSessionId(id: string, principal: string, secret: string | undefined, maxAgeMs: number, now = Date.now()): Promise<SessionStart | null> {
  if (!secret || id.length > MAX_SEALED_ID_LENGTH) return null;
  const [name, recordPart, macPart, extra] = id.split(".");
  if (!name || !recordPart || !macPart || extra !== undefined || !isSessionId(name)) return null;
  let mac: Uint8Array;
  try {
    mac = fromBase64url(macPart);
  } catch {
    return null;
  }
  // The MAC covers the text as sent, so only the spelling we issued opens.
  if (!(await crypto.subtle.verify("HMAC", await hmacKey(secret), mac, signed(`${name}.${recordPart}`, principal)))) return null;
  const record = JSON.parse(new TextDecoder().decode(fromBase64url(recordPart))) as SessionRecord;
  if (now >= record.t + maxAgeMs) return null;
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

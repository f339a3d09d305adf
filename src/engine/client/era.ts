/**
 * Which revision to speak to a server. `auto` tries 2026-07-28 first and
 * falls back to a 2025-11-25 session when the server shows it does not speak
 * it; the verdict is remembered per server URL for the life of the isolate,
 * so only the first client to reach a server pays for the probe.
 */
import { LEGACY_VERSIONS, MODERN_VERSION } from "../mcp/versions";
import type { McpClientError } from "./errors";

export type Protocol = "auto" | typeof MODERN_VERSION | (typeof LEGACY_VERSIONS)[number];

const verdicts = new Map<string, "modern" | "legacy">();
export const rememberedEra = (url: string) => verdicts.get(url);
export const rememberEra = (url: string, era: "modern" | "legacy") => void verdicts.set(url, era);
export const forgetEra = (url: string) => void verdicts.delete(url);

/** The codes only a 2026-07-28 server sends: its answer means "speak modern, but fix this". */
const MODERN_CODES = new Set([-32020, -32021, -32022]);

type ProbeVerdict = { kind: "modern-retry"; version: string } | { kind: "legacy" } | { kind: "error" };

/** Reads the answer a server gave to a modern request. */
export function judgeProbe(err: McpClientError): ProbeVerdict {
  if (err.code === -32022) {
    const supported = (err.data as { supported?: unknown } | undefined)?.supported;
    const list = Array.isArray(supported) ? supported.filter((v): v is string => typeof v === "string") : [];
    if (list.includes(MODERN_VERSION)) return { kind: "modern-retry", version: MODERN_VERSION };
    if (list.some((v) => (LEGACY_VERSIONS as readonly string[]).includes(v))) return { kind: "legacy" };
    return { kind: "error" };
  }
  if (err.code !== undefined && MODERN_CODES.has(err.code)) return { kind: "error" };
  // An older server does not know the request at all: 400, 404 or 405 without a modern error in the body.
  if (err.status === 400 || err.status === 404 || err.status === 405) return { kind: "legacy" };
  // A server that routes on the body may answer an unknown method in-band with -32601 (or a session error).
  if (err.code === -32601 || err.code === -32600 || err.code === -32000 || err.code === -32001) return { kind: "legacy" };
  return { kind: "error" };
}

/**
 * JSON-RPC as the test and bench clients read it, and the small helpers every
 * client here shares: fresh ids, header overrides, the result of an answer.
 *
 * This folder is a client of the wire, written from the protocol text rather
 * than from the engine: it imports nothing from `src/`, so a test that passes
 * proves the server speaks MCP, not that it agrees with itself. It runs in
 * workerd (the vitest helpers) and in Node (the load and bench scripts), so it
 * uses web APIs only, and TypeScript that Node can strip (`import type`,
 * explicit `.ts` extensions, no enums or parameter properties).
 */

export type RequestId = string | number;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: any;
}

/** A JSON-RPC message (loosely typed on purpose: tests look at every corner of it). */
export interface RpcMessage {
  jsonrpc: "2.0";
  id?: RequestId | null;
  method?: string;
  params?: any;
  result?: any;
  error?: JsonRpcError;
}

/** Header changes a caller asks for: a value replaces the header, `null` removes it. */
export type HeaderOverrides = Record<string, string | null>;

export const ACCEPT_BOTH = "application/json, text/event-stream";

let nextId = 1;
export const freshId = (): number => nextId++;

/** Applies overrides to a header set; names compare case-insensitively, as HTTP has it. */
export function withHeaders(base: Record<string, string>, overrides: HeaderOverrides = {}): Record<string, string> {
  const headers = { ...base };
  for (const [name, value] of Object.entries(overrides)) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    if (value !== null) headers[name] = value;
  }
  return headers;
}

/** The `result` of an answer; throws on a JSON-RPC error, a missing answer or a tool error. */
export function resultOf(message: RpcMessage | undefined, what: string): any {
  if (!message || message.error || message.result === undefined)
    throw new Error(`${what}: ${JSON.stringify(message?.error ?? message).slice(0, 300)}`);
  if (message.result.isError) throw new Error(`${what}: tool error ${JSON.stringify(message.result).slice(0, 300)}`);
  return message.result;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

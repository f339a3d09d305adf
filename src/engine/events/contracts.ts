/**
 * What McpEvents objects ask of each other and what the Worker asks of them (object.ts implements it):
 * the requests and answers of the type's own object and of a shard, as plain data (an RPC answer
 * carries an error as data, since an error's class does not cross the boundary).
 */
import type { LogRow } from "./log-store";

export type Answer<T> = { result: T } | { error: { code: number; message: string; data?: unknown } };

export interface EmitRequest {
  data: unknown;
  match: Record<string, unknown>;
  eventId?: string;
  timestamp?: string;
}

export interface PollRequest {
  args: string;
  cursor: unknown;
  maxAgeMs?: number;
  maxEvents: number;
  /** For a stream's replay: each event with its own cursor. */
  withCursors?: boolean;
}

/** What a shard asks when a subscription is made: the callback host it will verify (or null), and where the new subscription starts. */
export interface JoinRequest {
  host: string | null;
  cursor: unknown;
  maxAgeMs?: number;
}

export interface Joined {
  head: number;
  /** The position the subscription starts after. */
  start: number;
  truncated: boolean;
  verifyAllowed: boolean;
}

/** A page of the log after a position, with the head. */
export interface LogPage {
  head: number;
  rows: LogRow[];
}

export interface SubscribeRequest {
  id: string;
  principal: string;
  scopes: readonly string[];
  /** The arguments as the type's schema parsed them, in canonical JSON. */
  args: string;
  url: string;
  secret: string;
  cursor: unknown;
  maxAgeMs?: number;
  ttlMs: number | null | undefined;
}

/** The RPC surface of an McpEvents object, in both roles. */
export interface EventsRpc {
  emit(name: string, req: EmitRequest): Promise<Answer<{ eventId: string; shards: number }>>;
  poll(name: string, req: PollRequest): Promise<Answer<Record<string, unknown>>>;
  join(name: string, k: number, req: JoinRequest): Promise<Answer<Joined>>;
  read(name: string, from: number, limit: number): Promise<Answer<LogPage>>;
  subscribe(name: string, k: number, req: SubscribeRequest, verify: boolean): Promise<Answer<Record<string, unknown>>>;
  unsubscribe(name: string, k: number, id: string): Promise<Answer<{ found: boolean }>>;
  wake(name: string, k: number): Promise<void>;
}

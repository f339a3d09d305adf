/**
 * What a 2025-11-25 session answers when it refuses a message: the session object's own checks, the
 * rules for what it is sent (session-messages.ts) and the task runtime's (session-tasks.ts).
 */
import { ErrorCode } from "../mcp/errors";
import type { RequestId } from "../mcp/jsonrpc";
import { TOO_MANY_STREAMS, type Refusal, type SessionAnswer } from "./contracts";

export const refuse = (refusal: Refusal, id: RequestId | null, message: string): SessionAnswer => ({
  kind: "refused",
  refusal,
  id,
  error: { code: ErrorCode.InvalidRequest, message },
});

/** Nothing was stored or run: the session has no room for another stream. */
export const tooManyStreams = (id: RequestId | null) => refuse("too-many-streams", id, TOO_MANY_STREAMS);

/** Nothing was stored: the client holds as many sessions with state as SESSION_MAX_LIVE allows. */
export const tooManySessions = (id: RequestId | null, cap: number) =>
  refuse(
    "too-many-sessions",
    id,
    `Too Many Requests: this client already holds ${cap} sessions with state (SESSION_MAX_LIVE); end one with DELETE, or wait until one expires`,
  );

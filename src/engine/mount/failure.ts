/**
 * What a failure of the upstream is downstream. Every path of a mount throws: the upstream's own
 * JSON-RPC error as it was (a refusal it answered), or a MountError naming the mount (it could not be
 * reached, it broke off, it answered nonsense). Only a tool call turns a MountError into a tool result
 * (server.ts), so that the model reads it; a list, read, prompt or completion answers it as an error.
 */
import { McpClientError } from "../client/errors";
import { ErrorCode, McpError } from "../mcp/errors";

/** The upstream could not serve `what`; its message names the mount and the reason. */
export class MountError extends McpError {
  constructor(prefix: string, what: string, reason: string) {
    super(ErrorCode.InternalError, `The mounted server "${prefix}" could not be reached for ${what}: ${reason}`);
  }
}

/**
 * The error a failure of the upstream is here: its JSON-RPC error as it was (the upstream's `uri`, when
 * it names one, written as this server's), else a MountError (logged).
 */
export function mountFailure(err: unknown, prefix: string, what: string, uri?: string): McpError {
  if (err instanceof McpClientError && err.code !== undefined && err.status !== undefined && err.status < 500) {
    if (uri === undefined) return new McpError(err.code, err.message, err.data);
    const here = `${prefix}+${uri}`;
    const data = err.data && typeof err.data === "object" ? (err.data as Record<string, unknown>) : undefined;
    return new McpError(err.code, err.message.split(uri).join(here), data?.uri === uri ? { ...data, uri: here } : err.data);
  }
  if (err instanceof McpError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  console.error(JSON.stringify({ mcp: "mount_failed", mount: prefix, what, message: reason }));
  return new MountError(prefix, what, reason);
}

/**
 * The check every events helper makes before it sends anything: the server advertised the Events
 * extension. A server without it would answer `events/*` with "Method not found" (or, worse, with
 * something of its own); refused here, the caller reads which server and what it lacks.
 */
import { EVENTS_EXTENSION } from "../mcp/event-names";
import type { McpClient } from "./client";
import { McpClientError } from "./errors";

/** Connects if need be, then throws McpClientError unless the server listed the extension under `capabilities.extensions`. */
export async function requireEvents(client: McpClient, method: string): Promise<void> {
  await client.connect();
  if (client.capabilities.extensions?.[EVENTS_EXTENSION] !== undefined) return;
  throw new McpClientError(
    `${method} was not sent: the server at ${client.url} does not advertise the Events extension (${EVENTS_EXTENSION}) in its capabilities`,
  );
}

/** The events test app as Workers: with bearer tokens (webhooks need a principal) and without authentication. */
import { createMcpWorker } from "../../../src/mcp";
import eventsApp, { verifyToken } from "./events-app";

export const eventsWorker = createMcpWorker(eventsApp, { verifyToken });
export const anonymousEventsWorker = createMcpWorker(eventsApp);
export const { McpEvents } = eventsWorker;

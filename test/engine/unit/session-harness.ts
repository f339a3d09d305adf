/**
 * A 2025 session without its Durable Object: its SessionState (row, store, stream log, alarm) over
 * node:sqlite with fake pipe sockets, and the registry of a small app. The message and call rules
 * (src/engine/objects/session-messages.ts and session-calls.ts) take this as their host exactly as they take
 * the session object, so those rules run in Node; the object itself (RPC, WebSockets, eviction) is
 * covered through /mcp by the integration tests.
 */
import * as v from "valibot";
import { readConfig } from "../../../src/engine/config";
import type { Env } from "../../../src/engine/env";
import { defineApp, defineTool } from "../../../src/engine/mcp/app";
import { elicit } from "../../../src/engine/mcp/input";
import { compileApp } from "../../../src/engine/mcp/registry";
import type { Call } from "../../../src/engine/objects/session-calls";
import type { SessionHost } from "../../../src/engine/objects/session-messages";
import { SessionState } from "../../../src/engine/objects/session-state";
import { nodeStorage } from "./node-storage";

const app = defineApp({
  info: { name: "session-unit", version: "0.0.0" },
  tools: [
    defineTool({
      name: "ask_name",
      description: "Asks the user for a name, then greets them.",
      input: v.object({}),
      handler: (_args, ctx) => {
        const { who } = ctx.input.ask({ who: elicit("Your name?", { name: { type: "string" } }, ["name"]) });
        return who.action === "accept" ? `Hello, ${String(who.content?.name)}!` : "Hello, whoever you are!";
      },
    }),
    defineTool({ name: "echo", description: "Echoes its text.", input: v.object({ text: v.string() }), handler: ({ text }) => text }),
  ],
});

/** A pipe socket that records what the session sent it. */
export class FakeSocket {
  readonly frames: { e?: string; d?: string; end?: true; retry?: number }[] = [];
  closed = false;
  send(text: string): void {
    if (this.closed) throw new Error("closed");
    this.frames.push(JSON.parse(text));
  }
  close(): void {
    this.closed = true;
  }
}

export function sessionHarness(vars: Record<string, string> = {}) {
  const storage = nodeStorage();
  // Request log lines are on by default; here they would only bury the test output.
  const config = readConfig({ LOG_REQUESTS: "off", ...vars } as unknown as Env);
  const sockets = new Map<string, FakeSocket[]>();
  const state = new SessionState(
    Object.assign(storage.kv, { sql: storage.sql }),
    (stream) => (sockets.get(stream) ?? []).filter((s) => !s.closed) as unknown as WebSocket[],
    () => config,
  );
  state.session = {
    id: "unit-session",
    protocolVersion: "2025-11-25",
    clientCapabilities: { elicitation: {} },
    principal: "",
    subscriptions: [],
    createdAt: Date.now(),
    lastSeenAt: Date.now(),
    counter: 1,
  };
  const host: SessionHost = {
    store: state.store,
    log: state.log,
    session: state.session,
    next: () => state.next(),
    save: () => state.save(),
    reg: compileApp(app),
    bindings: {} as Env,
    config,
    running: new Map<string, Call>(),
    atStreamLimit: () => false,
    seat: { admit: async () => true, cap: config.sessionMaxLive, counted: () => true },
    get ended() {
      return state.ended;
    },
  };
  const { store, log } = state;
  /** Connects a pipe to a stream, as the Worker does when it answers with SSE. */
  const connect = (stream: string) => {
    const socket = new FakeSocket();
    sockets.set(stream, [...(sockets.get(stream) ?? []), socket]);
    return socket;
  };
  /** The stream's stored events, parsed: what a Last-Event-ID resume from its start would get. */
  const events = (stream: string) => store.eventsAfter(stream, 0).map((e) => JSON.parse(e.data) as Record<string, any>);
  return { host, state, store, log, alarm: storage.alarm, config, connect, events };
}

/** Lets queued work (a re-run handler, the alarm's re-arming) finish. */
export const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

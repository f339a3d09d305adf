/**
 * The Events extension's name and methods, as the core knows them: the 2025-11-25 revision refuses
 * these methods and leaves the capability out of `initialize` (the extension is defined for
 * 2026-07-28 on). The extension itself lives in src/engine/events/, brought by the app that uses it.
 */
export const EVENTS_EXTENSION = "io.modelcontextprotocol/events";

/** Where ChatGPT reads the same settings: a top-level capability. */
export const EVENTS_CAPABILITY = "events";

export const EVENT_METHODS = ["events/list", "events/subscribe", "events/unsubscribe", "events/poll", "events/stream"] as const;

/** Shape checks on untrusted JSON, shared by every place that reads a client's message. */

/** A JSON object (not null, not an array). */
export const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** A string, a boolean or a finite number: a JSON value that is neither null nor a container. */
export const isScalar = (x: unknown): x is string | boolean | number =>
  typeof x === "boolean" || typeof x === "string" || Number.isFinite(x);

/** Characters of a client's string (a method, a name, a task or request id) a log line, span or data point keeps. */
const MAX_KEPT = 128;

/** A client's string as telemetry keeps it: cut to MAX_KEPT characters, so no client can grow a line, a span or a row. */
export const bounded = <T extends string | undefined>(s: T): T => (s && s.length > MAX_KEPT ? (`${s.slice(0, MAX_KEPT)}…` as T) : s);

/** A resource update reaches the subscriber of the URI itself and of any parent path of it. */
export const coversUri = (subscription: string, uri: string): boolean =>
  uri === subscription || uri.startsWith(subscription.endsWith("/") ? subscription : `${subscription}/`);

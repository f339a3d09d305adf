/** Shape checks on untrusted JSON, shared by every place that reads a client's message. */

/** A JSON object (not null, not an array). */
export const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** A string, a boolean or a finite number: a JSON value that is neither null nor a container. */
export const isScalar = (x: unknown): x is string | boolean | number =>
  typeof x === "boolean" || typeof x === "string" || Number.isFinite(x);

/** A resource update reaches the subscriber of the URI itself and of any parent path of it. */
export const coversUri = (subscription: string, uri: string): boolean =>
  uri === subscription || uri.startsWith(subscription.endsWith("/") ? subscription : `${subscription}/`);

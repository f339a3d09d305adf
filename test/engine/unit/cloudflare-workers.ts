/**
 * "cloudflare:workers" for the unit tests, which run in Node: the engine imports the platform's
 * tracer from it (src/engine/reporting.ts). Node has no tracer, so no span is made, as with TRACING=off;
 * what spans carry is tested against the runtime (test/engine/e2e/spans.mjs).
 */
export const tracing = undefined;

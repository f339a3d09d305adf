/** One MCP wire client for the vitest helpers (workerd) and the load and bench scripts (Node). */
export * from "./rpc.ts";
export * from "./modern.ts";
export * from "./legacy.ts";
export * from "./sse.ts";

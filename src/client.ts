/**
 * The dual-era MCP client's door (docs/client.md): `import { McpClient } from "./client"` from a file
 * in src/. The client lives in the engine (src/engine/client/); this path and its exports stay put.
 */
export * from "./engine/client";

/**
 * The results the client returns, typed. The shapes are the protocol core's
 * own (imported as types only, so no server code reaches a client bundle);
 * the fields only one revision sends (`resultType`, `ttlMs`, `cacheScope`)
 * are optional, since a 2025-11-25 server never sends them.
 */
import type {
  CallToolResult as CoreCallToolResult,
  Content,
  GetPromptResult as CoreGetPromptResult,
  Icon,
  Implementation,
  Resource,
  ResourceContents,
  ServerCapabilities,
} from "../mcp/types";

export type { Content, Implementation, Resource, ResourceContents, ServerCapabilities };

/** Fields any result may carry. */
export interface ResultFields {
  resultType?: string;
  ttlMs?: number;
  cacheScope?: "public" | "private";
  _meta?: Record<string, unknown>;
}
export interface Page {
  nextCursor?: string;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: "object"; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  _meta?: Record<string, unknown>;
}
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  _meta?: Record<string, unknown>;
}

export type ListToolsResult = ResultFields & Page & { tools: Tool[] };
export type ListResourcesResult = ResultFields & Page & { resources: Resource[] };
export type ListResourceTemplatesResult = ResultFields & Page & { resourceTemplates: ResourceTemplate[] };
export type ListPromptsResult = ResultFields & Page & { prompts: Prompt[] };
export type CallToolResult = ResultFields & CoreCallToolResult;
export type ReadResourceResult = ResultFields & { contents: ResourceContents[] };
export type GetPromptResult = ResultFields & CoreGetPromptResult;
export type CompleteResult = ResultFields & { completion: { values: string[]; total?: number; hasMore?: boolean } };
export type DiscoverResult = ResultFields & { supportedVersions: string[]; capabilities: ServerCapabilities; instructions?: string };

export type CompletionRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/** Who the client says it is. */
export interface ClientInfo {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

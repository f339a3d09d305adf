/**
 * Wire shapes shared by both revisions, as TypeScript types. Only what the
 * core builds or reads is here; the official JSON schemas of each revision are the
 * full reference.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Record<string, unknown>;
}
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Record<string, unknown>;
}
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A resource as lists and links describe it. */
export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Record<string, unknown>;
}

export type Content =
  | { type: "text"; text: string; annotations?: Annotations; _meta?: Record<string, unknown> }
  | { type: "image"; data: string; mimeType: string; annotations?: Annotations; _meta?: Record<string, unknown> }
  | { type: "audio"; data: string; mimeType: string; annotations?: Annotations; _meta?: Record<string, unknown> }
  | { type: "resource"; resource: ResourceContents; annotations?: Annotations; _meta?: Record<string, unknown> }
  | ({ type: "resource_link" } & Resource);

export interface CallToolResult {
  content: Content[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: Content;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
}

/** Client capabilities as either revision declares them (2025 in initialize, 2026 per request). */
export interface ClientCapabilities {
  elicitation?: { form?: object; url?: object };
  sampling?: { context?: object; tools?: object };
  roots?: { listChanged?: boolean };
  extensions?: Record<string, object>;
  experimental?: Record<string, object>;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  completions?: object;
  logging?: object;
  extensions?: Record<string, object>;
  [key: string]: unknown;
}

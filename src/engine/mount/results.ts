/**
 * An upstream's result as this server serves it. Every URI in it gets the mount's prefix (a
 * resource_link or an embedded resource in a tool's content or a prompt's messages, a read's
 * contents), so that a client that follows one reads it here, through the mount. Only the result's
 * own fields are kept: what the upstream's revision wrapped around it (`resultType`, `ttlMs`,
 * `cacheScope`, its `serverInfo` and any other `io.modelcontextprotocol/` key of `_meta`) is left for
 * this server's lane to add for the revision it serves, with this server's identity.
 */
import type { CallToolResult } from "../mcp/types";

type Json = Record<string, unknown>;

/** `_meta` without the keys the protocol reserves; undefined when nothing is left. */
function ownMeta(meta: unknown): Json | undefined {
  if (!meta || typeof meta !== "object") return undefined;
  const kept = Object.entries(meta as Json).filter(([key]) => !key.startsWith("io.modelcontextprotocol/"));
  return kept.length ? Object.fromEntries(kept) : undefined;
}

/** `result`'s `fields`, and its own `_meta`. */
function pick(result: Json, fields: readonly string[]): Json {
  const out: Json = {};
  for (const field of fields) if (result[field] !== undefined) out[field] = result[field];
  const meta = ownMeta(result._meta);
  if (meta) out._meta = meta;
  return out;
}

export class Renamer {
  constructor(private readonly prefix: string) {}

  /** The URI here of the upstream's `uri`. */
  uri(uri: unknown): unknown {
    return typeof uri === "string" ? `${this.prefix}+${uri}` : uri;
  }

  /** A content block with its URIs renamed (a resource_link's, an embedded resource's). */
  private content = (block: unknown): unknown => {
    if (!block || typeof block !== "object") return block;
    const c = block as Json;
    if (c.type === "resource_link") return { ...c, uri: this.uri(c.uri) };
    if (c.type === "resource" && c.resource && typeof c.resource === "object")
      return { ...c, resource: { ...(c.resource as Json), uri: this.uri((c.resource as Json).uri) } };
    return c;
  };

  toolResult(result: Json): CallToolResult {
    const out = pick(result, ["content", "structuredContent", "isError"]);
    out.content = Array.isArray(out.content) ? out.content.map(this.content) : [];
    return out as unknown as CallToolResult;
  }

  prompt(result: Json): Json {
    const out = pick(result, ["description", "messages"]);
    if (Array.isArray(out.messages))
      out.messages = out.messages.map((m: unknown) =>
        m && typeof m === "object" ? { ...(m as Json), content: this.content((m as Json).content) } : m,
      );
    return out;
  }

  read(result: Json): Json {
    const out = pick(result, ["contents"]);
    out.contents = Array.isArray(out.contents) ? out.contents.map((c: Json) => ({ ...c, uri: this.uri(c.uri) })) : [];
    return out;
  }
}

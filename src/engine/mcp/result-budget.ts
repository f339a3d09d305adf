/**
 * Results that fit the host (docs/results.md): hosts cut or refuse a tool result past their limit
 * (Claude Code at 25,000 tokens by default), and a model that reads half a JSON document fails in
 * ways nobody sees. A result over the budget is answered with the part that fits, cut at a line or
 * word and marked as cut, and a `resource_link` to the whole, which the engine keeps for a while in
 * its storage (src/engine/objects/kept-results.ts) and `resources/read` serves to the same caller.
 * A result under the budget costs one pass over its content's lengths, nothing more.
 */
import type { HandlerContext } from "./context";
import { isObject } from "./guards";
import type { CallToolResult, Content } from "./types";

/**
 * 50,000 characters: the strictest common host's default, Claude Code's 25,000 tokens
 * (MAX_MCP_OUTPUT_TOKENS), holds it even at 2 characters a token (dense JSON, numbers), and
 * claude.ai's ~150,000 characters three times over.
 */
export const DEFAULT_MAX_RESULT_CHARS = 50_000;

/** One hour: long enough for the model to read the whole in the same conversation turn or the next few. */
export const DEFAULT_KEEP_SECONDS = 3_600;

/** The URI scheme of a kept result: `mcp-result://<id>`, `<id>` 128 random bits. */
export const KEPT_PREFIX = "mcp-result://";

/** Where the engine keeps whole results; the runtime's (objects/kept-results.ts), set by createMcpWorker. */
export interface ResultKeeper {
  /** Keeps `whole` (a result's JSON) for `owner` ("" for an anonymous caller); its URI, or undefined when nothing can keep it. */
  keep(env: unknown, owner: string, whole: string, keepSeconds: number): Promise<string | undefined>;
  /** The result kept at `uri` when `principal` may read it (its owner, or anyone for an anonymous owner's), else undefined. */
  read(env: unknown, principal: string, uri: string): Promise<string | undefined>;
}

export interface BudgetSettings {
  /** Characters of content a result may carry (the app's `maxResultChars`, or the tool's); false: no budget. */
  maxChars: number | false;
  keepSeconds: number;
  keeper?: ResultKeeper;
}

/** What the part of a result costs a host, in characters: its texts, and the payload of its other blocks. */
function sizeOf(content: readonly Content[]): number {
  let n = 0;
  for (const c of content) n += blockSize(c as unknown as Record<string, unknown>);
  return n;
}

function blockSize(c: Record<string, unknown>): number {
  if (typeof c.text === "string") return c.text.length;
  if (typeof c.data === "string") return c.data.length;
  const r = c.resource;
  return isObject(r) ? (typeof r.text === "string" ? r.text.length : typeof r.blob === "string" ? r.blob.length : 0) : 0;
}

/**
 * `result` as it may go to the host. `mirrored`: its structuredContent is its text's JSON (the engine
 * made the text from an output schema's value), so it is not measured twice.
 */
export async function fitResult(
  result: CallToolResult,
  settings: BudgetSettings,
  ctx: HandlerContext<any>,
  tool: string,
  mirrored = false,
): Promise<CallToolResult> {
  const { maxChars } = settings;
  if (maxChars === false || !Array.isArray(result.content)) return result;
  const size = sizeOf(result.content);
  const structured = result.structuredContent === undefined || mirrored ? 0 : JSON.stringify(result.structuredContent).length;
  if (size <= maxChars && structured <= maxChars) return result;
  const whole = JSON.stringify(result);
  const uri = await settings.keeper?.keep(ctx.env, ctx.principal ?? "", whole, settings.keepSeconds).catch((err: unknown) => {
    console.error(JSON.stringify({ mcp: "result_not_kept", message: `A result of ${tool} over the budget could not be kept`, error: String(err) }));
    return undefined;
  });
  return cutResult(result, maxChars, { size: Math.max(size, structured), uri, keepSeconds: settings.keepSeconds, tool });
}

interface CutInfo {
  size: number;
  uri: string | undefined;
  keepSeconds: number;
  tool: string;
}

/** The blocks that fit in `maxChars` (text cut at a boundary), a note saying what was cut, and the link. */
export function cutResult(result: CallToolResult, maxChars: number, info: CutInfo): CallToolResult {
  const note = noteOf(info);
  let room = Math.max(0, maxChars - note.length);
  const content: Content[] = [];
  for (const block of result.content) {
    const size = blockSize(block as unknown as Record<string, unknown>);
    if (size <= room) {
      content.push(block);
      room -= size;
      continue;
    }
    // Only text can be cut; an image or embedded file that does not fit is left to the link.
    if (block.type === "text" && room > 0) content.push({ ...block, text: cutText(block.text, room) });
    break;
  }
  content.push({ type: "text", text: note });
  if (info.uri)
    content.push({
      type: "resource_link",
      uri: info.uri,
      name: `${info.tool} result`,
      description: `The whole result of ${info.tool} (${info.size} characters), as JSON: a CallToolResult`,
      mimeType: "application/json",
    });
  // structuredContent is not cut (half a document is not one); its text mirror above is, and the link has it whole.
  const { structuredContent: _whole, content: _all, ...rest } = result;
  return { ...rest, content };
}

function noteOf({ size, uri, keepSeconds }: CutInfo): string {
  return uri
    ? `\n[Result cut: it has ${size} characters, more than this server sends at once. The whole result is at ${uri} (read it with resources/read) for ${Math.round(keepSeconds / 60)} minutes.]`
    : `\n[Result cut: it has ${size} characters, more than this server sends at once, and the rest could not be kept.]`;
}

/** `text` cut to at most `max` characters: at the last line break in its last fifth, else the last space, else at `max`. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  // Never between the two halves of a surrogate pair.
  if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
  const floor = Math.floor(end * 0.8);
  const line = text.lastIndexOf("\n", end - 1);
  if (line >= floor) return text.slice(0, line + 1);
  const space = text.lastIndexOf(" ", end - 1);
  if (space >= floor) return text.slice(0, space + 1);
  return text.slice(0, end);
}

/** Whether a `resources/read` names a kept result. */
export const isKeptUri = (uri: unknown): uri is string => typeof uri === "string" && uri.startsWith(KEPT_PREFIX);

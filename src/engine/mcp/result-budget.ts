/**
 * Results that fit the host (docs/results.md): hosts cut or refuse a tool result past their limit
 * (Claude Code at 25,000 tokens by default), and a model that reads half a JSON document fails in
 * ways nobody sees. A result over the budget is answered with the part that fits, cut at a line or
 * word and marked as cut, and a `resource_link` to the whole, which the engine keeps a while
 * (src/engine/results.ts) and `resources/read` serves to the same caller. The rules live here; the
 * opt-in value `resultBudget()` brings them, so an app without it carries none of this.
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

type Run = (reg: any, params: Record<string, unknown>, ctx: HandlerContext<any>) => unknown;

/** What the budget sees of the compiled app (registry.ts's Registry, which imports this file). */
interface BudgetedApp {
  tools: ReadonlyMap<string, { def: { maxResultChars?: number | false } }>;
  methods: Record<string, { run: Run } | undefined>;
}

/** What `resultBudget()` gives `defineApp({ results })`. */
export interface ResultBudget {
  /** Wraps resources/read so that it serves kept results (called once, when the app is compiled). */
  install(reg: BudgetedApp): void;
  /** `result` as it may go to the host; `mirrored`: its structuredContent is its text's JSON, not measured twice. */
  fit(result: CallToolResult, tool: string, ctx: HandlerContext<any>, mirrored: boolean): Promise<CallToolResult>;
  /** The characters of content a result may carry, the app's. */
  readonly maxChars: number;
}

/** What a cut result's note says: its size, and where the whole is (undefined: not kept). */
interface CutInfo {
  size: number;
  uri: string | undefined;
  keepSeconds: number;
  tool: string;
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

/** The characters `result` carries: its content's, or its structuredContent's when that is not their mirror. */
export function resultSize(result: CallToolResult, mirrored: boolean): number {
  const size = Array.isArray(result.content) ? sizeOf(result.content) : 0;
  return result.structuredContent === undefined || mirrored ? size : Math.max(size, JSON.stringify(result.structuredContent).length);
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
      mimeType: "application/json",
    });
  // structuredContent is not cut (half a document is not one); its text mirror above is, and the link has it whole.
  const { structuredContent: _whole, content: _all, ...rest } = result;
  return { ...rest, content };
}

function noteOf({ size, uri, keepSeconds }: CutInfo): string {
  return `\n[Result cut at this point of ${size} characters. ${uri ? `The whole is at ${uri} (resources/read) for ${Math.round(keepSeconds / 60)} minutes.` : "The rest was not kept."}]`;
}

/** `text` cut to at most `max` characters: at the last line break in its last fifth, else the last space, else at `max`. */
function cutText(text: string, max: number): string {
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

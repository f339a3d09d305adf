/**
 * Opaque cursors over the registry's fixed lists. A cursor is the base64 of
 * "p:<offset>"; anything else is an invalid cursor (-32602).
 */
import { invalidParams } from "./errors";

/**
 * One page of a list result, the list under `key` (`{ tools: [...] }`), then `nextCursor` when more
 * follow: every list method answers in this shape, so they share it here.
 */
export function paginate<T>(key: string, items: readonly T[], cursor: unknown, pageSize: number): Record<string, unknown> {
  let offset = 0;
  if (cursor !== undefined) {
    offset = decodeCursor(cursor);
    if (offset > items.length) throw invalidParams("Invalid cursor: it points past the end of the list");
  }
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return next < items.length ? { [key]: page, nextCursor: btoa(`p:${next}`) } : { [key]: page };
}

function decodeCursor(cursor: unknown): number {
  if (typeof cursor !== "string") throw invalidParams("Invalid cursor: it must be a string");
  // The spec allows "" as a cursor; it means the first page.
  if (cursor === "") return 0;
  return cursorNumber(cursor, /^p:(\d{1,9})$/);
}

/**
 * The number an opaque cursor of this server's carries: the base64 of a tagged number, which
 * `pattern` matches with the number as its group. Anything else, text that is no base64 included,
 * is an invalid cursor (-32602).
 */
export function cursorNumber(cursor: string, pattern: RegExp): number {
  let decoded = "";
  try {
    decoded = atob(cursor);
  } catch {}
  const m = pattern.exec(decoded);
  if (!m) throw invalidParams("Invalid cursor");
  return Number(m[1]);
}

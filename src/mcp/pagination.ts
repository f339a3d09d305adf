/**
 * Opaque cursors over the registry's fixed lists. A cursor is the base64 of
 * "p:<offset>"; anything else is an invalid cursor (-32602).
 */
import { invalidParams } from "./errors";

export function paginate<T>(items: readonly T[], cursor: unknown, pageSize: number): { page: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    offset = decodeCursor(cursor);
    if (offset > items.length) throw invalidParams("Invalid cursor: it points past the end of the list");
  }
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return next < items.length ? { page, nextCursor: btoa(`p:${next}`) } : { page };
}

function decodeCursor(cursor: unknown): number {
  if (typeof cursor !== "string") throw invalidParams("Invalid cursor: it must be a string");
  // The spec allows "" as a cursor; it means the first page.
  if (cursor === "") return 0;
  let decoded: string;
  try {
    decoded = atob(cursor);
  } catch {
    throw invalidParams("Invalid cursor");
  }
  const m = /^p:(\d{1,9})$/.exec(decoded);
  if (!m) throw invalidParams("Invalid cursor");
  return Number(m[1]);
}

/**
 * Event cursors: opaque to clients, a position in a type's replay log here. `null` (or absent) means
 * "from now on"; anything that is not a cursor this server wrote is InvalidParams.
 */
import { invalidParams } from "../mcp/errors";
import { cursorNumber } from "../mcp/pagination";

export const encodeCursor = (seq: number) => btoa(`ev1:${seq}`);

/** The position a cursor names, or null for "from now on". */
export function decodeCursor(cursor: unknown): number | null {
  if (cursor === undefined || cursor === null) return null;
  if (typeof cursor !== "string") throw invalidParams("Invalid cursor: it must be a string or null");
  return cursorNumber(cursor, /^ev1:(\d{1,15})$/);
}

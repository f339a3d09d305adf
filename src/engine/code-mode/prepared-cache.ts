/**
 * The parse of each recent `execute` code, kept per isolate: parsing and walking the code with acorn
 * is the one part of a run's host-side work that grows with the code, and a model runs the same code
 * again (a retry, the same script for another input) often enough. What is kept names nothing of a
 * run or a caller (instrument.ts's `Instrumented`: the source and where the steps go); each run still
 * renders it under names of its own, gets a fresh isolate and its own step budget, and every inner
 * call is still checked as the caller's. Bounded in entries and in characters, least recently used
 * first out; a code too large for a fair share of the bound is parsed and not kept.
 */
import { instrument, type Instrumented } from "./instrument";

/** Entries kept at most. */
export const MAX_ENTRIES = 64;
/** Characters kept at most: each entry's code (the key) and its parse (the source, about as long, and its inserts). */
export const MAX_CHARS = 1_048_576;
/** An insert's share of the bound, in characters (a small object). */
const INSERT_CHARS = 16;

const kept = new Map<string, { parsed: Instrumented; chars: number }>();
let chars = 0;
/** Parses, and answers from what is kept, since the isolate started (read by the tests). */
export const preparedStats = { parsed: 0, reused: 0 };

/** What is kept now: entries and characters (within MAX_ENTRIES and MAX_CHARS). */
export const keptNow = () => ({ entries: kept.size, chars });

/** The code's parse: the kept one (now the most recently used), else a new one, kept if it fits. */
export function instrumented(code: string): Instrumented {
  const hit = kept.get(code);
  if (hit) {
    kept.delete(code);
    kept.set(code, hit);
    preparedStats.reused++;
    return hit.parsed;
  }
  const parsed = instrument(code);
  preparedStats.parsed++;
  const size = 2 * code.length + (parsed.ok ? parsed.inserts.length * INSERT_CHARS : parsed.message.length);
  if (size > MAX_CHARS / 8) return parsed;
  kept.set(code, { parsed, chars: size });
  chars += size;
  for (const [key, entry] of kept) {
    if (kept.size <= MAX_ENTRIES && chars <= MAX_CHARS) break;
    kept.delete(key);
    chars -= entry.chars;
  }
  return parsed;
}

/**
 * `ctx.step` inside a task: what makes a re-run skip finished work. Its own module, so that only
 * what runs tasks (the task runtime, the test client) carries it.
 */
import type { HandlerContext } from "./context";

/** A task's finished steps, by name (values are JSON). */
export interface StepJournal {
  get(name: string): { value: unknown } | undefined;
  put(name: string, value: unknown): void;
}

/** `ctx.step` inside a task: a finished step's value comes from the journal; a new one is run and kept. */
export function journaled(journal: StepJournal): HandlerContext["step"] {
  return async <T>(name: string, fn: () => T | Promise<T>): Promise<T> => {
    if (typeof name !== "string" || name === "") throw new TypeError("ctx.step needs a name");
    const kept = journal.get(name);
    if (kept) return kept.value as T;
    const value = await fn();
    // JSON only: what a step returns must survive storage the same way on every run.
    const stored = value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
    journal.put(name, stored);
    return (value === undefined ? undefined : stored) as T;
  };
}

// Types of quirks.mjs, for the engine tests that import it (test/engine/integration/hosted-quirks.test.ts).
type Lane = "modern" | "legacy";

interface QuirkLane {
  headers: Record<string, string | null>;
  accepts?: "json" | "sse";
}

export interface HostedQuirk {
  id: string;
  client: string;
  threads: string[];
  sends: string;
  /** What any server must do to serve it. */
  accept: string;
  modern?: QuirkLane;
  legacy?: QuirkLane;
}

export interface QuirkCase {
  quirk: HostedQuirk;
  lane: Lane;
}

export const QUIRKS: HostedQuirk[];
export const QUIRK_CASES: QuirkCase[];
export function quirkRequest(
  c: QuirkCase,
  url: string,
  options?: { sessionId?: string; id?: number; extraHeaders?: Record<string, string> },
): [string, RequestInit];
export function initializeRequest(url: string, extraHeaders?: Record<string, string>): [string, RequestInit];
export function quirkProblem(c: QuirkCase, answer: { status: number; contentType?: string; text?: string }): string | undefined;

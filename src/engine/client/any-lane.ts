/**
 * The lanes there are, told apart by `era`: the few places that need one revision's extras (a 2025-11-25
 * task call, `tasks/list`) narrow on it instead of testing classes.
 */
import type { LegacySession } from "./legacy";
import type { ModernLane } from "./modern";

export type AnyLane = ModernLane | LegacySession;

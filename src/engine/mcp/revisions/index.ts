/**
 * The protocol revisions this server speaks, each a module behind one interface (revision.ts).
 * This is where a revision is picked for what records only its lane (era): a stored task, its owner.
 * The lanes know their own revision (a session is 2025; a request with the envelope is 2026).
 */
import type { TaskOwner } from "../tasks";
import { LEGACY, LEGACY_TASKS } from "./2025-11-25";
import { MODERN, MODERN_TASKS } from "./2026-07-28";
import type { Era, Revision, TaskRules } from "./revision";

export { LEGACY, LEGACY_TASKS, MODERN, MODERN_TASKS };
export type { Era, Revision, TaskRules };

/** The revision of a lane. */
export const revisionOf = (era: Era): Revision => (era === "legacy" ? LEGACY : MODERN);

/** The task rules of a lane's revision. */
export const taskRulesOf = (era: Era): TaskRules => (era === "legacy" ? LEGACY_TASKS : MODERN_TASKS);

/**
 * Whether `caller` may reach a task: the same lane and principal and, when anonymous, the same
 * session. A 2026 owner has no session, so its anonymous tasks are whoever holds the (unguessable)
 * id; an anonymous 2025 task belongs to the session that made it.
 */
export const sameTaskOwner = (stored: TaskOwner, caller: TaskOwner): boolean =>
  stored.era === caller.era && stored.principal === caller.principal && (stored.principal !== "" || stored.sessionId === caller.sessionId);

/**
 * The engine tests' Worker entry (vitest.engine.config.ts): the engine test app's, plus session
 * and task classes only the tests bind, kept out of the entry whose bundle the budget measures.
 */
import type { Env } from "../../../src/engine/env";
import { createMcpWorker } from "../../../src/mcp";
import scopedApp from "./scoped-engine-app";
import userStateApp from "./user-state-app";
import mountApp from "./mount-app";
import resultsApp from "./results-app";
import codeModeApp from "../code-mode/app";
import surfaceApp, { surfaceLimiter } from "./surface-app";

const surfaceWorker = createMcpWorker(surfaceApp);

export * from "./index";
export { default } from "./index";
/** The OAuth entry's single-use marks (bound as OAUTH_ONCE), for the ID-JAG tests. */
export { OAuthOnce } from "../../../src/engine/oauth/once";

/**
 * An app's 2025 session and task classes that make and reach its tasks in a task namespace of its own
 * (bound as `taskBinding`), not the engine app's.
 */
function withOwnTasks(worker: ReturnType<typeof createMcpWorker>, taskBinding: string) {
  const envOf = (env: Env) => ({ ...env, MCP_TASK: (env as unknown as Record<string, Env["MCP_TASK"]>)[taskBinding] });
  return {
    Session: class extends worker.McpSession {
      constructor(ctx: DurableObjectState, env: Env) {
        super(ctx, envOf(env));
      }
    },
    Task: class extends worker.McpTask {
      constructor(ctx: DurableObjectState, env: Env) {
        super(ctx, envOf(env));
      }
    },
  };
}

/**
 * The scoped engine app's session class (bound as MCP_SESSION_SCOPED) and task class (MCP_TASK_SCOPED:
 * the runs of its task tools, and their owners' indexes).
 */
export const { Session: ScopedSession, Task: ScopedTask } = withOwnTasks(createMcpWorker(scopedApp), "MCP_TASK_SCOPED");

/** The events test app's object class (bound as MCP_EVENTS): test/engine/integration/events-*.test.ts. */
export { McpEvents as EventsObject } from "./events-worker";
const userStateWorker = createMcpWorker(userStateApp);
/** The user-state fixture app's session class (bound as MCP_SESSION_USER) and task class (MCP_TASK_USER). */
export const { Session: UserStateSession, Task: UserStateTask } = withOwnTasks(userStateWorker, "MCP_TASK_USER");
/** Each principal's state for the user-state app (bound as MCP_USER). */
export const McpUser = userStateWorker.McpUser;

/** The 2025 session class of the mount fixture app (bound as MCP_SESSION_MOUNT; see mount-app.ts). */
export const MountSession = createMcpWorker(mountApp).McpSession;

/**
 * The result-budget fixture app's session class (bound as MCP_SESSION_RESULTS; see results-app.ts) and
 * task class (MCP_TASK_RESULTS: its tasks, and its cut results kept whole).
 */
export const { Session: ResultsSession, Task: ResultsTask } = withOwnTasks(createMcpWorker(resultsApp), "MCP_TASK_RESULTS");
/** The 2025 session class of the tool-search fixture app (bound as MCP_SESSION_SURFACE), its rate limiter bound in. */
export class SurfaceSession extends surfaceWorker.McpSession {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, { ...env, SURFACE_LIMIT: surfaceLimiter } as Env);
  }
}

/** The 2025 session class of the Code Mode fixture app (bound as MCP_SESSION_CODE; see test/engine/code-mode/app.ts). */
export const CodeModeSession = createMcpWorker(codeModeApp).McpSession;

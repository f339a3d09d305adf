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

const scoped = createMcpWorker(scopedApp);
/** The scoped app's objects make and reach their tasks in its own task namespace, not the engine app's. */
const withScopedTasks = (env: Env) => ({ ...env, MCP_TASK: (env as unknown as { MCP_TASK_SCOPED: Env["MCP_TASK"] }).MCP_TASK_SCOPED });

/** The 2025 session class of the scoped engine app (bound as MCP_SESSION_SCOPED). */
export class ScopedSession extends scoped.McpSession {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withScopedTasks(env));
  }
}
/** Its task class (bound as MCP_TASK_SCOPED): the runs of the scoped app's task tools, and their owners' indexes. */
export class ScopedTask extends scoped.McpTask {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withScopedTasks(env));
  }
}

/** The events test app's object class (bound as MCP_EVENTS): test/engine/integration/events-*.test.ts. */
export { McpEvents as EventsObject } from "./events-worker";
const userStateWorker = createMcpWorker(userStateApp);
/** The user-state app's objects make and reach their tasks in its own task namespace. */
const withUserStateTasks = (env: Env) => ({ ...env, MCP_TASK: (env as unknown as { MCP_TASK_USER: Env["MCP_TASK"] }).MCP_TASK_USER });

/** The 2025 session class of the user-state fixture app (bound as MCP_SESSION_USER). */
export class UserStateSession extends userStateWorker.McpSession {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withUserStateTasks(env));
  }
}
/** Its task class (bound as MCP_TASK_USER). */
export class UserStateTask extends userStateWorker.McpTask {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withUserStateTasks(env));
  }
}
/** Each principal's state for the user-state app (bound as MCP_USER). */
export const McpUser = userStateWorker.McpUser;

/** The 2025 session class of the mount fixture app (bound as MCP_SESSION_MOUNT; see mount-app.ts). */
export const MountSession = createMcpWorker(mountApp).McpSession;

const resultsWorker = createMcpWorker(resultsApp);
/** The results app's objects make and reach their tasks (and kept results) in its own task namespace. */
const withResultsTasks = (env: Env) => ({ ...env, MCP_TASK: (env as unknown as { MCP_TASK_RESULTS: Env["MCP_TASK"] }).MCP_TASK_RESULTS });
/** The 2025 session class of the result-budget fixture app (bound as MCP_SESSION_RESULTS; see results-app.ts). */
export class ResultsSession extends resultsWorker.McpSession {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withResultsTasks(env));
  }
}
/** Its task class (bound as MCP_TASK_RESULTS): its tasks, and its cut results kept whole. */
export class ResultsTask extends resultsWorker.McpTask {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withResultsTasks(env));
  }
}
/** The 2025 session class of the tool-search fixture app (bound as MCP_SESSION_SURFACE), its rate limiter bound in. */
export class SurfaceSession extends surfaceWorker.McpSession {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, { ...env, SURFACE_LIMIT: surfaceLimiter } as Env);
  }
}

/** The 2025 session class of the Code Mode fixture app (bound as MCP_SESSION_CODE; see test/engine/code-mode/app.ts). */
export const CodeModeSession = createMcpWorker(codeModeApp).McpSession;

/**
 * Making a task, for both revisions: a tools/call its revision turned into a task becomes the
 * start of a task object, which counts it against its owner's limits and runs it. What differs
 * between the revisions (how long it is kept, whether the call waits for it) the revision says.
 */
import type { Config } from "../config";
import type { Env } from "../env";
import type { Caller } from "../mcp/auth";
import { McpError } from "../mcp/errors";
import type { CompiledTool } from "../mcp/registry";
import { taskRulesOf } from "../mcp/revisions";
import type { TaskMade } from "../mcp/revisions/revision";
import type { TaskOptions } from "../mcp/tasks";
import { newTaskId, taskIndexKey, taskStub } from "./addresses";
import type { TaskStart } from "./contracts";
import { taskLimits } from "./task-index-store";

/** What a lane knows of the call: the task's start, but for what is decided here. */
export type TaskCall = Pick<TaskStart, "owner" | "params" | "answers" | "trace" | "progressToken"> & {
  /** Who made the task: the task keeps its view (ctx.auth, bounded) and its rate-limit key for the runs. */
  caller: Caller;
  tool: CompiledTool & { task: TaskOptions };
  /** What the client said of itself: the session's (2025), or the request's envelope (2026). */
  client: Pick<TaskStart, "protocolVersion" | "clientCapabilities" | "clientInfo">;
  /** Whose in-flight budget the task spends when its owner is anonymous (the client's address, say). */
  anonymousKey: string;
};

/** How much of the caller's claims (as JSON, in bytes) a task keeps for its runs' ctx.auth. */
const KEPT_CLAIMS_BYTES = 8192;

/**
 * The caller as the task keeps it: principal, scopes and client id as they are (the verifier bounds
 * scopes at 256 of 256 characters, so at most ~66 KB, as the token they came from), and of the claims
 * the app selected only those that fit in 8 KiB of JSON, in order: a claim past that is left out of
 * ctx.auth in the task's runs, so a large claim cannot make the task's stored start unbounded.
 */
function keptCaller(caller: Caller): Caller {
  const claims: Record<string, unknown> = {};
  let room = KEPT_CLAIMS_BYTES;
  for (const [name, value] of Object.entries(caller.claims)) {
    let bytes: number;
    try {
      bytes = new TextEncoder().encode(JSON.stringify([name, value])).length;
    } catch {
      continue; // a custom verifier's claim JSON cannot write (a BigInt, a cycle) is not kept
    }
    if (bytes <= room) (claims[name] = value), (room -= bytes);
  }
  return { ...caller, claims };
}

/** Creates the task; throws the McpError of a refusal (the owner is at a limit). */
export async function createTask(call: TaskCall, env: Env, config: Config): Promise<TaskMade> {
  const { tool, anonymousKey, client, caller, ...start } = call;
  const taskId = newTaskId();
  const created = await taskStub(env, taskId).create({
    ...start,
    // The Caller as one value, as the edge built it: each run's ctx.caller is this, not a rebuild.
    caller: keptCaller(caller),
    protocolVersion: client.protocolVersion,
    clientCapabilities: client.clientCapabilities,
    clientInfo: client.clientInfo,
    taskId,
    tool: tool.def.name,
    indexKey: taskIndexKey(call.owner, anonymousKey),
    limits: taskLimits(config),
    ...taskRulesOf(call.owner.era).taskTimes(tool.task, config, call.params),
    pollIntervalMs: tool.task.pollIntervalMs ?? 1000,
  });
  if (created.kind === "refused") throw new McpError(created.error.code, created.error.message, created.error.data);
  return created;
}

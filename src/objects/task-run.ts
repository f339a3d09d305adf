/**
 * One run of a task's handler, through the same executor as every request.
 * Inside a task progress becomes the task's status message (2026-07-28 sends
 * no progress or log notifications for tasks; a 2025 session also gets them on
 * its GET stream), finished steps come from the task's journal, and input
 * stops the run until the answers arrive.
 */
import type { Config } from "../config";
import type { Env } from "../env";
import { LEGACY_METHODS, MODERN_METHODS } from "../mcp/dispatch";
import { execute, type Outcome, type StepJournal } from "../mcp/execute";
import type { JsonRpcNotification } from "../mcp/jsonrpc";
import type { Registry } from "../mcp/registry";
import { RELATED_TASK } from "../mcp/tasks";
import { reportingFor } from "../reporting";
import { createNotifier } from "./addresses";
import type { TaskRecord } from "./task-store";

export interface RunHost {
  reg: Registry;
  env: Env;
  config: Config;
  journal: StepJournal;
  /** A progress report: the task's new status message. */
  onProgress(message: string): void;
  /** 2025: a message for the creating session's GET stream. */
  toSession(message: JsonRpcNotification): void;
}

/** The token progress is reported under inside a 2026 task, where only the status message shows it. */
const STATUS_ONLY = "task-status";

export function runTask(host: RunHost, record: TaskRecord, signal: AbortSignal): Promise<Outcome> {
  const { start, view } = record;
  const legacy = start.owner.era === "legacy";
  // The answers of the request round that made the task are in record.answers; its MRTR fields are not the task's.
  const { inputResponses: _answers, requestState: _state, task: _hint, ...params } = start.params;
  return execute("tools/call", params, {
    era: start.owner.era,
    reg: host.reg,
    table: legacy ? LEGACY_METHODS : MODERN_METHODS,
    protocolVersion: start.protocolVersion,
    clientCapabilities: start.clientCapabilities,
    clientInfo: start.clientInfo,
    logLevel: legacy ? "debug" : undefined,
    progressToken: legacy && start.progressToken !== undefined ? start.progressToken : STATUS_ONLY,
    answers: record.answers,
    state: record.state,
    signal,
    emit: (message) => {
      const m = message as JsonRpcNotification;
      if (m.method === "notifications/progress") {
        const p = m.params ?? {};
        host.onProgress(typeof p.message === "string" ? p.message : p.total !== undefined ? `${p.progress}/${p.total}` : String(p.progress));
        if (!legacy || start.progressToken === undefined) return;
      }
      if (legacy) host.toSession({ ...m, params: { ...m.params, _meta: { [RELATED_TASK]: { taskId: view.taskId } } } });
    },
    notify: createNotifier(host.env),
    env: host.env,
    principal: start.owner.principal || undefined,
    reporting: reportingFor(host.config, host.env, host.reg, start.trace, start.owner.sessionId),
    task: { id: view.taskId, journal: host.journal },
  });
}

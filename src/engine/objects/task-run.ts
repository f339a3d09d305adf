/**
 * One run of a task's handler, through the same executor as every request.
 * Inside a task progress becomes the task's status message, and the task's
 * revision says what else the handler's messages reach (a 2025 session's GET
 * stream); finished steps come from the task's journal, and input stops the
 * run until the answers arrive.
 */
import type { Config } from "../config";
import type { Env } from "../env";
import { restoredCaller } from "../mcp/auth";
import { execute, type Outcome } from "../mcp/execute";
import { journaled, type StepJournal } from "../mcp/step-journal";
import type { JsonRpcNotification } from "../mcp/jsonrpc";
import type { Registry } from "../mcp/registry";
import { revisionOf, taskRulesOf } from "../mcp/revisions";
import { reportingFor } from "../reporting";
import { createNotifier } from "./addresses";
import type { TaskRecord } from "./task-store";

interface RunHost {
  reg: Registry;
  env: Env;
  config: Config;
  journal: StepJournal;
  /** A progress report: the task's new status message. */
  onProgress(message: string): void;
  /** 2025: a message for the creating session's GET stream. */
  toSession(message: JsonRpcNotification): void;
}

export function runTask(host: RunHost, record: TaskRecord, signal: AbortSignal): Promise<Outcome> {
  const { start, view } = record;
  const revision = revisionOf(start.owner.era);
  const reports = taskRulesOf(start.owner.era).taskRun(start.progressToken);
  // The answers of the request round that made the task are in record.answers; its MRTR fields are not the task's.
  const { inputResponses: _answers, requestState: _state, task: _hint, ...params } = start.params;
  return execute("tools/call", params, {
    revision,
    reg: host.reg,
    protocolVersion: start.protocolVersion,
    clientCapabilities: start.clientCapabilities,
    clientInfo: start.clientInfo,
    logLevel: revision.logLevel(undefined),
    progressToken: reports.progressToken,
    answers: record.answers,
    state: record.state,
    signal,
    emit: (message) => {
      const m = message as JsonRpcNotification;
      if (m.method === "notifications/progress") {
        const p = m.params ?? {};
        host.onProgress(
          typeof p.message === "string" ? p.message : p.total !== undefined ? `${p.progress}/${p.total}` : String(p.progress),
        );
      }
      const toSession = reports.forSession(m, view.taskId);
      if (toSession) host.toSession(toSession);
    },
    notify: createNotifier(host.env),
    env: host.env,
    // The caller as it was when the task was made (task-create.ts keeps it, bounded).
    // Tasks made before the Caller was kept whole have its view and key.
    caller: start.caller ?? restoredCaller(start.owner.principal, start.auth, start.rateLimitKey ?? ""),
    reporting: reportingFor(host.config, host.env, host.reg, start.trace, start.owner.sessionId),
    task: { id: view.taskId, step: journaled(host.journal), cutShort: record.cutShort },
  });
}

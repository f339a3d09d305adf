/**
 * One task: a Durable Object with SQLite storage (task-store.ts), named by the
 * task id. Its handler outlives the client, the isolate and a restart: the
 * alarm is set to a lease once a run has gone on for a moment (LEASE_AFTER_MS),
 * and a run cut short (eviction, a crash, a deploy) is started again when the
 * lease ends, or before it by the platform's retry of the alarm that started it
 * (at least once; the step journal keeps finished work). Runs start from the alarm, the first one
 * from an alarm the create sets due at once (see create()); only a create that
 * waits for the result starts it in the call, the alarm holding the object.
 * Input moves the task to input_required; the answers set the alarm again.
 * One alarm also ends the task at its ttl.
 *
 * The same class, named by an owner key, is that owner's task index: a
 * role of its own (task-index.ts), which this class only hands its calls to.
 */
import { DurableObject } from "./durable-object";
import { readConfig, type Config } from "../config";
import type { Env } from "../env";
import type { AppDefinition } from "../mcp/app";
import { ErrorCode, McpError, type JsonRpcErrorObject } from "../mcp/errors";
import type { Outcome } from "../mcp/execute";
import { checkInputResponse } from "../mcp/input";
import { compileApp, type Registry } from "../mcp/registry";
import { revisionOf, sameTaskOwner, taskRulesOf } from "../mcp/revisions";
import { isTerminal, statusText, taskSummary, type StoredInputRequest, type TaskView } from "../mcp/tasks";
import { publishTaskNotification, sessionStub, taskIndexStub } from "./addresses";
import { TASK_NOTIFICATION, type TaskCreated, type TaskOwner, type TaskRpc, type TaskStart } from "./contracts";
import { runTask } from "./task-run";
import { TaskIndex } from "./task-index";
import type { OverLimit, TaskLimits } from "./task-index-store";
import { TaskStore, type TaskRecord } from "./task-store";

/** Runs cut short in a row (the isolate died mid-run) after which a task fails instead of running again. */
const MAX_CUT_SHORT = 5;

/**
 * 2025 sessions of the owner (besides the creating one) that may wait on one task's tasks/result at
 * once: each is told of every change, so their number is bounded.
 */
const MAX_WAITING_SESSIONS = 16;

/** A notification inlines a task's result only up to this size; a larger one is read with tasks/get. */
const NOTIFY_INLINE_BYTES = 65_536; // 64 KiB, as a literal: esbuild keeps a product in a bundle that leaves this module out

/**
 * How long a run goes on before its lease alarm is set (at most half the lease). Each setAlarm() is
 * billed as a row written, and most runs end sooner: they set only the alarm of the task's expiry, so
 * a plain task sets two alarms in its life (its run due, its expiry) rather than three. A run that
 * dies before this is not lost: the alarm that started it did not end, and the platform runs an alarm
 * that did not end again (at least once), which counts as a run cut short (see alarm()). A run the
 * create started is held by that alarm too, as it waits for the run.
 */
const LEASE_AFTER_MS = 1000;

abstract class TaskObject extends DurableObject<Env> implements TaskRpc {
  protected abstract readonly app: AppDefinition<any>;
  private readonly store: TaskStore;
  /** Set when this object is an owner's index rather than a task. */
  private index?: TaskIndex;
  private readonly config: Config;
  /** The run going on in this instance, if any. */
  private running?: AbortController;
  /**
   * That run's latest progress, as the task's status message: kept here, not stored, as a row written
   * for each report would cost more than the task (a run cut short reports again from its restart).
   */
  private progress?: Pick<TaskView, "statusMessage" | "lastUpdatedAt">;
  /** Settles when that run has stored and announced its outcome and set the next alarm. */
  private runEnd?: Promise<void>;
  /** Callers waiting for the task to finish (the immediate-result shortcut). */
  private readonly finishers = new Set<() => void>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = readConfig(env);
    this.store = new TaskStore(ctx.storage.sql);
  }

  private get reg(): Registry {
    return compileApp(this.app);
  }

  // ── the task's RPC surface ───────────────────────────────────────────────
  async create(start: TaskStart): Promise<TaskCreated> {
    const now = Date.now();
    const view: TaskView = {
      taskId: start.taskId,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: start.ttlMs,
      pollIntervalMs: start.pollIntervalMs,
    };
    const bytes = utf8Length(JSON.stringify(start.params)) + utf8Length(JSON.stringify(start.answers));
    const over = await taskIndexStub(this.env, start.indexKey).admit(start.taskId, view, bytes, start.limits);
    if (over) return { kind: "refused", error: { code: ErrorCode.InternalError, message: refusal(over, start.limits) } };
    // Stored before the id is returned: a tasks/get right after the create finds it. The first run is due now.
    this.store.createTask({ start, view, answers: { ...start.answers }, runFrom: now });
    // The run starts from the alarm set here, due at once: an invocation of its own, so the run has
    // its span (docs/tracing.md), which work left going after this call answers would not (the
    // platform ends the call's trace with it). Measured under wrangler dev, the alarm starts the run
    // 3-4 ms later than a timer in this call did, and the answer no longer shares the object with it.
    // A create that waits for the result (immediateMs) runs it here, inside this call; the alarm then
    // finds it going and holds the object for it (see alarm()). Should the instance die first, the
    // alarm starts the run in the next one, as after any run cut short.
    if (start.immediateMs > 0) this.startRun(this.store.getTask()!).catch((err) => console.error("task: its run failed", err));
    await this.ctx.storage.setAlarm(now);
    if (start.immediateMs > 0) {
      const done = await this.finishedWithin(start.immediateMs);
      if (done && (done.view.status === "completed" || done.view.status === "failed") && done.view.result) {
        // Answered as a plain result: nobody will ever ask for this task, so it goes now.
        await this.forget(done);
        return { kind: "immediate", result: done.view.result };
      }
    }
    return { kind: "task", task: this.store.getTask()!.view };
  }

  async get(owner: TaskOwner): Promise<TaskView | null> {
    return (await this.owned(owner))?.view ?? null;
  }

  async toolOf(owner: TaskOwner): Promise<string> {
    return (await this.owned(owner))?.start.tool ?? "";
  }

  async watch(owner: TaskOwner, sessionId: string): Promise<{ task: TaskView } | { error: JsonRpcErrorObject } | null> {
    const record = await this.owned(owner);
    if (!record) return null;
    if (isTerminal(record.view.status)) return { task: record.view };
    if (sessionId !== record.start.owner.sessionId && !this.store.addWaiter(sessionId, MAX_WAITING_SESSIONS)) {
      return {
        error: {
          code: ErrorCode.InternalError,
          message: `${MAX_WAITING_SESSIONS} other sessions already wait on this task's result; wait in one of them`,
        },
      };
    }
    return { task: record.view };
  }

  async update(owner: TaskOwner, inputResponses: Record<string, unknown>): Promise<{ error?: JsonRpcErrorObject } | null> {
    const record = await this.owned(owner);
    if (!record) return null;
    const { view } = record;
    // Answers arriving after the task moved on are ignored: updates are eventually consistent.
    if (view.status !== "input_required" || !view.inputRequests) return {};
    const outstanding = view.inputRequests;
    for (const [key, answer] of Object.entries(inputResponses)) {
      if (!Object.hasOwn(outstanding, key)) continue;
      try {
        checkInputResponse(key, outstanding[key]!.method, answer);
      } catch (err) {
        return { error: (err as McpError).toJSON() };
      }
    }
    for (const [key, answer] of Object.entries(inputResponses)) {
      if (!Object.hasOwn(outstanding, key)) continue;
      record.answers[key] = answer;
      this.store.putAnswer(key, answer);
      delete outstanding[key];
    }
    const allAnswered = Object.keys(outstanding).length === 0;
    if (allAnswered) {
      view.status = "working";
      delete view.inputRequests;
      delete view.statusMessage;
      record.runFrom = Date.now();
      await this.ctx.storage.setAlarm(record.runFrom);
    }
    // Some answers of several: the task still waits, and a 2025 session has nothing new to hear.
    await this.save(record, { statusChanged: allAnswered });
    return {};
  }

  async discard(owner: TaskOwner): Promise<void> {
    const record = await this.owned(owner);
    if (!record) return;
    this.running?.abort(new McpError(ErrorCode.InternalError, "The task's session ended"));
    await this.forget(record);
  }

  async cancel(owner: TaskOwner): Promise<{ task: TaskView; wasTerminal: boolean } | null> {
    const record = await this.owned(owner);
    if (!record) return null;
    if (isTerminal(record.view.status)) return { task: record.view, wasTerminal: true };
    record.view.status = "cancelled";
    record.view.statusMessage = "Cancelled by the client";
    delete record.view.inputRequests;
    this.running?.abort(new McpError(ErrorCode.InternalError, "The task was cancelled"));
    await this.save(record);
    await this.ctx.storage.setAlarm(this.expiryOf(record));
    return { task: record.view, wasTerminal: false };
  }

  // ── the alarm: runs, leases, expiry ──────────────────────────────────────
  async alarm(info?: AlarmInvocationInfo): Promise<void> {
    const record = this.store.getTask();
    if (!record) return;
    if (Date.now() >= this.expiryOf(record)) return this.expire(record);
    if (this.runEnd) {
      // A run this instance started outside an alarm (create): the alarm waits for it, as for a run
      // of its own, so that the object is held until it ends; the run sets its lease (startRun()).
      // Alarms do not overlap, so the lease fires only if the instance dies.
      return this.runEnd;
    }
    if (record.view.status !== "working") {
      await this.ctx.storage.setAlarm(this.expiryOf(record));
      return;
    }
    // A run due a lease or more ago that this instance is not running died with its isolate: this
    // alarm is its lease's end. So did one whose alarm the platform runs again (a retry: the run
    // died before it set its lease). (An earlier version marked a run going on instead.) Only then
    // is anything written here: the restart is due from now, and counted.
    const now = Date.now();
    if (record.inRun || info?.isRetry || now >= (record.runFrom ?? record.view.lastUpdatedAt) + this.config.taskLeaseMs) {
      record.cutShort = (record.cutShort ?? 0) + 1;
      record.runFrom = now;
      if (record.cutShort < MAX_CUT_SHORT) this.store.putTask(record);
    }
    if ((record.cutShort ?? 0) >= MAX_CUT_SHORT) {
      this.fail(record.view, {
        code: ErrorCode.InternalError,
        message: `The task's run was cut short ${MAX_CUT_SHORT} times (its isolate died each time); it is not started again`,
      });
      await this.save(record);
      await this.ctx.storage.setAlarm(this.expiryOf(record));
      return;
    }
    // The lease (TASK_LEASE_SECONDS), set by the run once it has gone on for a moment: a live run is
    // never doubled, as one alarm runs at a time; the lease only fires when the run died with its
    // isolate, and starts it again.
    return this.startRun(record);
  }

  private leaseEnd(record: TaskRecord): number {
    return Math.min(Date.now() + this.config.taskLeaseMs, this.expiryOf(record));
  }

  /**
   * Runs the handler to its end, marked as going on here so that no second run starts beside it. It
   * writes nothing to start: should this instance die, the lease's end tells (see alarm()), or for a
   * run shorter than LEASE_AFTER_MS, the platform's retry of the alarm that holds it.
   */
  private startRun(record: TaskRecord): Promise<void> {
    this.progress = undefined;
    const abort = new AbortController();
    this.running = abort;
    // No other run starts before this one's end is cleared (an alarm waits for it instead).
    return (this.runEnd = this.runToEnd(record, abort).finally(() => (this.runEnd = undefined)));
  }

  private async runToEnd(record: TaskRecord, abort: AbortController): Promise<void> {
    // The alarm that ends the task at its ttl cannot fire while one runs the handler: a timer
    // does, so a run that outlives the ttl is cut off then, not when it ends.
    const ttl = setTimeout(
      () => this.expireIfDue().catch((err) => console.error("task: could not expire at its ttl", err)),
      this.expiryOf(record) - Date.now(),
    );
    const lease = setTimeout(
      // Only for a task still stored: one forgotten meanwhile (its ttl passed) leaves nothing behind.
      () =>
        this.store.getTask() &&
        this.ctx.storage.setAlarm(this.leaseEnd(record)).catch((err) => console.error("task: could not set its lease", err)),
      Math.min(LEASE_AFTER_MS, this.config.taskLeaseMs / 2),
    );
    let outcome: Outcome;
    try {
      outcome = await runTask(this.runHost(record), record, abort.signal);
    } finally {
      clearTimeout(ttl);
      clearTimeout(lease);
      this.running = undefined;
    }
    // What happened meanwhile (a cancel) is in storage, not in the record this run started with.
    const latest = this.withProgress(this.store.getTask());
    this.progress = undefined;
    // Gone, or past its ttl while it ran (the expiry cut it off): nothing to announce. An expiry not
    // yet handled is handled here, as a run that ended before its lease has no alarm left to do it.
    if (!latest) return;
    if (Date.now() >= this.expiryOf(latest)) return this.expire(latest);
    // Otherwise it ended meanwhile (a cancel), and was stored then.
    if (latest.view.status === "working") {
      this.applyOutcome(latest, outcome);
      await this.save(latest);
    }
    await this.rearm();
    for (const finished of this.finishers) finished();
  }

  /**
   * The next alarm, from what is stored now. While a run's save tells the index and the listeners
   * that the task waits for input, the answers can already have come in (tasks/update): the task is
   * working again with no run, so it runs at once. Otherwise the alarm is the task's expiry.
   */
  private async rearm(): Promise<void> {
    const record = this.store.getTask();
    if (!record) return;
    await this.ctx.storage.setAlarm(record.view.status === "working" && !this.running ? Date.now() : this.expiryOf(record));
  }

  private runHost(record: TaskRecord) {
    return {
      reg: this.reg,
      env: this.env,
      config: this.config,
      journal: { get: (name: string) => this.store.getStep(name), put: (name: string, value: unknown) => this.store.putStep(name, value) },
      onProgress: (message: string) => {
        this.progress = { statusMessage: statusText(message), lastUpdatedAt: Date.now() };
      },
      toSession: (message: { method: string; params?: Record<string, unknown> }) => {
        const sessionId = record.start.owner.sessionId;
        if (sessionId)
          sessionStub(this.env, sessionId)
            .taskMessage(message)
            .catch((err) => console.error("task: could not reach its session", err));
      },
    };
  }

  /** The run's outcome, as the task's new status. */
  private applyOutcome(record: TaskRecord, outcome: Outcome): void {
    const { view } = record;
    const revision = revisionOf(record.start.owner.era);
    if (outcome.kind === "result") {
      if (utf8Length(JSON.stringify(outcome.result)) > this.config.taskMaxResultBytes) {
        return this.fail(view, {
          code: ErrorCode.InternalError,
          message: `The task's result is larger than TASK_MAX_RESULT_BYTES (${this.config.taskMaxResultBytes})`,
        });
      }
      view.status = taskRulesOf(record.start.owner.era).taskStatusOf(outcome.result);
      view.result = outcome.result;
      // A tool error is worth a line in tasks/get and tasks/list (2025 calls the task failed for it).
      if (outcome.result.isError === true)
        view.statusMessage = statusText(`The tool reported an error: ${firstText(outcome.result) ?? "(no text)"}`);
      else delete view.statusMessage;
    } else if (outcome.kind === "input") {
      view.status = "input_required";
      view.inputRequests = revision.inputRequests(outcome.required.requests) as Record<string, StoredInputRequest>;
      record.state = outcome.required.state;
    } else if (outcome.kind === "error") {
      this.fail(view, revision.encodeError(outcome.error));
    } else {
      // startTask() inside a task returns at once; reaching here is an engine bug.
      this.fail(view, { code: ErrorCode.InternalError, message: "The task asked to become a task again" });
    }
  }

  private fail(view: TaskView, error: JsonRpcErrorObject): void {
    view.status = "failed";
    view.error = error;
    view.statusMessage = statusText(error.message);
  }

  /** Resolves with the record once the task is no longer working, or undefined after `ms`. */
  private finishedWithin(ms: number): Promise<TaskRecord | undefined> {
    // The run, started in the create call, may have ended already.
    if (!this.runEnd) return Promise.resolve(this.store.getTask());
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.finishers.delete(done);
        resolve(this.store.getTask());
      };
      const timer = setTimeout(() => {
        this.finishers.delete(done);
        resolve(undefined);
      }, ms);
      this.finishers.add(done);
    });
  }

  /** The stored record with the running handler's latest progress, while the task works. */
  private withProgress(record: TaskRecord | undefined): TaskRecord | undefined {
    if (record?.view.status === "working" && this.progress) Object.assign(record.view, this.progress);
    return record;
  }

  private expiryOf(record: TaskRecord): number {
    return record.view.createdAt + record.view.ttlMs;
  }

  /** The task, when it exists, has not expired, and belongs to `owner`. */
  private async owned(owner: TaskOwner): Promise<TaskRecord | undefined> {
    const record = this.withProgress(this.store.getTask());
    if (!record || !sameTaskOwner(record.start.owner, owner)) return undefined;
    if (Date.now() >= this.expiryOf(record)) {
      await this.expire(record);
      return undefined;
    }
    return record;
  }

  private async expireIfDue(): Promise<void> {
    const record = this.store.getTask();
    if (record && Date.now() >= this.expiryOf(record)) await this.expire(record);
  }

  private async expire(record: TaskRecord): Promise<void> {
    this.running?.abort(new McpError(ErrorCode.InternalError, "The task expired"));
    const sessions = this.sessionsOf(record);
    await this.forget(record);
    // A 2025 tasks/result still waiting on the task would otherwise wait for an end that never comes.
    await Promise.all(
      sessions.map((id) =>
        sessionStub(this.env, id)
          .taskExpired(record.view.taskId)
          .catch((err) => console.error("task: could not tell a session it expired", err)),
      ),
    );
  }

  /**
   * The sessions told of the task's changes: the one that created it, and any other of the owner's
   * waiting on it. Only a 2025 task has either: a 2026 owner has no session, and watch() (2025
   * tasks/result) finds no 2026 task, as the owner's lane differs.
   */
  private sessionsOf(record: TaskRecord): string[] {
    const { owner } = record.start;
    return [...new Set([...(owner.sessionId ? [owner.sessionId] : []), ...this.store.waiters()])];
  }

  private async forget(record: TaskRecord): Promise<void> {
    // First: a run still going writes nothing from here on, not even between the deletes below.
    this.store.forgotten();
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    // Last: should the index be out of reach, its row still goes at the task's ttl.
    await taskIndexStub(this.env, record.start.indexKey)
      .record(record.view.taskId, null, 0)
      .catch((err) => console.error("task: could not tell its index it is gone", err));
  }

  /**
   * Stores a change and tells whoever follows the task: its index, the listen streams its revision
   * announces it to (2026: the notification carries the outstanding input requests), and, when the
   * status changed, the sessions that follow it (2025).
   */
  private async save(record: TaskRecord, { statusChanged = true } = {}): Promise<void> {
    record.view.lastUpdatedAt = Date.now();
    this.store.putTask(record);
    const { view, start } = record;
    const tell = async (what: string, p: Promise<unknown>) => {
      try {
        await p;
      } catch (err) {
        console.error(`task: could not tell ${what} of a status change`, err);
      }
    };
    await tell("its index", taskIndexStub(this.env, start.indexKey).record(view.taskId, taskSummary(view), this.store.bytes()));
    const params = taskRulesOf(start.owner.era).taskNotification(view);
    if (params)
      await tell(
        "listeners",
        publishTaskNotification(this.env, { method: TASK_NOTIFICATION, params: inlineLimited(params), principal: start.owner.principal }),
      );
    if (statusChanged)
      await Promise.all(this.sessionsOf(record).map((id) => tell("a session", sessionStub(this.env, id).taskUpdated(view))));
  }

  // ── the owner index's RPC surface, handed to its role ────────────────────
  private get asIndex(): TaskIndex {
    return (this.index ??= new TaskIndex(this.ctx.storage.sql));
  }
  admit(...args: Parameters<TaskIndex["admit"]>) {
    return this.asIndex.admit(...args);
  }
  record(...args: Parameters<TaskIndex["record"]>) {
    return this.asIndex.record(...args);
  }
  list(...args: Parameters<TaskIndex["list"]>) {
    return this.asIndex.list(...args);
  }
}

/**
 * The UTF-8 length of a string, which is what SQLite stores for it; a string's `length` counts UTF-16
 * units and would let text outside ASCII take up to three times the cap.
 */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: two units, four bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** The first text block of a tool result, if it has one. */
function firstText(result: Record<string, unknown>): string | undefined {
  const content = Array.isArray(result.content) ? (result.content as { type?: unknown; text?: unknown }[]) : [];
  const text = content.find((c) => c?.type === "text" && typeof c.text === "string")?.text;
  return text as string | undefined;
}

/** Why a new task was refused, naming the setting and what the caller can do. */
function refusal(over: OverLimit, limits: TaskLimits): string {
  if (over === "inFlight")
    return `Too many unfinished tasks for this caller (MAX_TASKS_IN_FLIGHT = ${limits.inFlight}); wait for one to finish or cancel one`;
  if (over === "retained")
    return `This caller already keeps ${limits.retained} tasks (MAX_TASKS_RETAINED); each is kept until its ttl ends, then a new one can start`;
  return `The tasks this caller keeps already hold close to ${limits.retainedBytes} bytes (MAX_TASK_BYTES_RETAINED); each is kept until its ttl ends, then a new one can start`;
}

/** A task's notification to listen streams; a large result stays behind tasks/get. */
function inlineLimited(detail: Record<string, unknown>): Record<string, unknown> {
  if (detail.result !== undefined && utf8Length(JSON.stringify(detail.result)) > NOTIFY_INLINE_BYTES) {
    delete detail.result;
    detail.statusMessage = "The result is ready; read it with tasks/get";
  }
  return detail;
}

/** The task class for an app; `createMcpWorker(app)` gives it to the Worker entry. */
export function taskObjectFor(app: AppDefinition<any>) {
  return class McpTask extends TaskObject {
    protected readonly app = app;
  };
}

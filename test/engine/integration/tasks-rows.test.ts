/**
 * What a task costs in SQLite rows written, which Cloudflare bills (a row
 * written for every row and index entry a statement changes, and for the
 * schema rows a new table writes) and which were most of a task's price. A
 * plain 2026-07-28 task, created, run and finished, then expired at its ttl,
 * is counted across every object it touches (its own and its owner's index)
 * from the cursors of the statements it runs, as Cloudflare counts them. The
 * owner's index keeps its rows in a table of fewer indexes than before; an
 * index of the previous version goes on with the table it has.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { taskIndexStub } from "../../../src/engine/objects/addresses";
import { expectRpcError, modernPost, modernResult } from "../helpers/mcp";

const from = (address: string) => ({
  capabilities: { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
  headers: { "CF-Connecting-IP": address },
});
const taskObject = (taskId: string) => env.MCP_TASK!.get(env.MCP_TASK!.idFromName(`task:${taskId}`));

/** The rows each statement wrote while counting, by statement. */
const written = new Map<string, number>();
let counting = false;
let restore: (() => void) | undefined;

/**
 * Counts the rows every SQL statement in this isolate writes while `counting` is set (the task objects
 * run in the tests' isolate, so one patch of the SqlStorage prototype sees them all).
 */
async function countRows(): Promise<void> {
  await runInDurableObject(taskObject("row-counter"), (_i, state) => {
    const proto = Object.getPrototypeOf(state.storage.sql) as SqlStorage;
    const exec = proto.exec;
    proto.exec = function (this: SqlStorage, query: string, ...bindings: unknown[]) {
      const cursor = exec.call(this, query, ...bindings);
      if (!counting) return cursor;
      // Rows written are known once the statement has run to its end.
      const rows = cursor.toArray();
      const key = query.replace(/\s+/g, " ").trim().slice(0, 60);
      if (cursor.rowsWritten > 0) written.set(key, (written.get(key) ?? 0) + cursor.rowsWritten);
      return Object.assign(Object.create(cursor), {
        toArray: () => rows,
        one: () => rows[0],
        [Symbol.iterator]: () => rows[Symbol.iterator](),
      }) as typeof cursor;
    } as typeof exec;
    restore = () => {
      proto.exec = exec;
    };
  });
}

/** The rows written since the last call, and the statements that wrote them. */
function take(): { rows: number; by: Record<string, number> } {
  const by = Object.fromEntries(written);
  written.clear();
  return { rows: Object.values(by).reduce((a, b) => a + b, 0), by };
}

afterEach(() => {
  counting = false;
  restore?.();
});

describe("the rows a task writes", () => {
  it("2026-07-28: a plain task writes 4 rows to be created, 2 to finish and 1 to expire, in its object and its owner's index", async () => {
    const address = "192.0.2.53";
    // The owner's index makes its table with its first task, once for all the tasks that follow.
    const first = await modernResult("tools/call", { name: "quick_task", arguments: { n: 0 } }, from(address));
    await vi.waitFor(async () =>
      expect((await modernResult("tasks/get", { taskId: first.taskId }, from(address))).status).toBe("completed"),
    );
    await countRows();

    counting = true;
    const created = await modernResult("tools/call", { name: "quick_task", arguments: { n: 1 } }, from(address));
    expect(created.status).toBe("working");
    const create = take();
    const stub = taskObject(created.taskId);
    // Finished, and every write of the end done: the alarm is the task's expiry once its index and listeners were told.
    await vi.waitFor(
      async () => {
        const task = await modernResult("tasks/get", { taskId: created.taskId }, from(address));
        expect(task.status).toBe("completed");
        const alarm = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
        expect(alarm).toBe(Date.parse(task.createdAt) + task.ttlMs);
      },
      { timeout: 10_000, interval: 20 },
    );
    const finish = take();

    // Its ttl passes (moved back in storage, uncounted), and its alarm ends it.
    counting = false;
    await runInDurableObject(stub, async (_i, state) => {
      const record = JSON.parse(state.storage.sql.exec<{ record: string }>("SELECT record FROM task").one().record);
      record.view.createdAt -= record.view.ttlMs + 1000;
      state.storage.sql.exec("UPDATE task SET record = ?", JSON.stringify(record));
      // Not due before the count starts: runDurableObjectAlarm runs it.
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    counting = true;
    await runDurableObjectAlarm(stub);
    const expire = take();
    counting = false;
    await expectRpcError(await modernPost("tasks/get", { taskId: created.taskId }, from(address)), 200, -32602);

    // Created: the index's row (1), the task's table (2: its schema) and its record with the arguments (1).
    // Finished: the record with the result (1), the index's row (1). Expired: the index's row (1); the
    // object's storage is deleted whole.
    expect({ create: create.rows, finish: finish.rows, expire: expire.rows }, JSON.stringify({ create, finish, expire }, null, 1)).toEqual({
      create: 4,
      finish: 2,
      expire: 1,
    });
  });

  it("2026-07-28: a run writes nothing to start or to report progress; tasks/get shows the progress while the task works", async () => {
    const address = "192.0.2.54";
    // Each step pauses 1.5 s: the second (write) is under way, after its progress, when tasks/get asks.
    const created = await modernResult(
      "tools/call",
      { name: "prepare_report", arguments: { topic: "rows", pauseMs: 1500 } },
      from(address),
    );
    await vi.waitFor(
      async () => {
        const t = await modernResult("tasks/get", { taskId: created.taskId }, from(address));
        expect(t.status, JSON.stringify(t)).toBe("input_required");
      },
      { timeout: 10_000, interval: 20 },
    );
    await countRows();
    // Counted from the answer on: the run starts at once, and reports twice before its second step.
    counting = true;
    await modernResult(
      "tasks/update",
      { taskId: created.taskId, inputResponses: { length: { action: "accept", content: { words: 4 } } } },
      from(address),
    );
    await vi.waitFor(
      async () => {
        const task = await modernResult("tasks/get", { taskId: created.taskId }, from(address));
        expect(task).toMatchObject({ status: "working", statusMessage: "writing" });
      },
      { timeout: 10_000, interval: 20 },
    );
    // The task's record is written once, by the answers (which make the run due); its start and its
    // reports ("outlined", "writing") write nothing.
    const { by } = take();
    const record = Object.entries(by).filter(([statement]) => /INTO task\b/.test(statement));
    expect(record, JSON.stringify(by)).toEqual([[expect.stringMatching(/^INSERT OR REPLACE INTO task /), 1]]);
    counting = false;
    await vi.waitFor(
      async () => expect((await modernResult("tasks/get", { taskId: created.taskId }, from(address))).status).toBe("completed"),
      { timeout: 10_000, interval: 50 },
    );
  });

  it("an owner's index of the previous version (AUTOINCREMENT positions, a UNIQUE id) takes new tasks after its own, and pages them in order", async () => {
    const key = "modern:index-of-the-previous-version";
    const now = Date.now();
    const view = (taskId: string) => ({
      taskId,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 3_600_000,
      pollIntervalMs: 1000,
    });
    await runInDurableObject(env.MCP_TASK!.get(env.MCP_TASK!.idFromName(`owner:${key}`)), (_i, state) => {
      state.storage.sql.exec(`CREATE TABLE listed (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, task TEXT NOT NULL,
        terminal INTEGER NOT NULL, expires_at INTEGER NOT NULL, bytes INTEGER NOT NULL)`);
      for (const id of ["old-1", "old-2"])
        state.storage.sql.exec(
          "INSERT INTO listed (id, task, terminal, expires_at, bytes) VALUES (?, ?, 0, ?, 10)",
          id,
          JSON.stringify(view(id)),
          now + 3_600_000,
        );
    });
    const index = taskIndexStub(env, key);
    const limits = { inFlight: 16, retained: 100, retainedBytes: 1_000_000 };
    for (const id of ["new-1", "new-2"]) expect(await index.admit(id, view(id) as never, 10, limits)).toBeUndefined();
    const first = await index.list(undefined, 3);
    expect(first?.tasks.map((t) => t.taskId)).toEqual(["old-1", "old-2", "new-1"]);
    const rest = await index.list(first!.nextCursor, 3);
    expect(rest).toEqual({ tasks: [expect.objectContaining({ taskId: "new-2" })] });
    // In flight: all four, so the cap counts them.
    expect(await index.admit("new-3", view("new-3") as never, 10, { ...limits, inFlight: 4 })).toBe("inFlight");
  });
});

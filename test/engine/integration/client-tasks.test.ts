/**
 * `client.tasks` against the engine's durable tasks, on both revisions: a
 * caller that stops after learning a task's id picks the task up again by
 * id, answers its question and reads its result; status changes reach a
 * subscription that names the task; a task is cancelled by id.
 */
import { describe, expect, it } from "vitest";
import { McpClient, McpClientError, type ServerNotification, type Subscription } from "../../../src/engine/client";
import { MCP_URL, engineFetch } from "../helpers/client";

const textOf = (r: Record<string, unknown>) => (r.content as { text?: string }[]).map((c) => c.text ?? "").join("");

const answers = { elicitation: () => ({ action: "accept" as const, content: { words: 5 } }) };

/** Client options of a caller that learns each new task's id and then stops following it (its onTask throws once). */
const droppingCaller = (ids: string[]) => ({
  handlers: answers,
  tasks: {
    onTask: (t: Record<string, unknown>) => {
      if (ids.includes(String(t.taskId))) return;
      ids.push(String(t.taskId));
      throw new Error("the caller stops here");
    },
  },
});

/** Starts prepare_report as a task and stops following it as soon as its id is known, as a caller that restarts would. */
async function startAndDrop(client: McpClient, ids: string[], topic: string, pauseMs = 0): Promise<string> {
  await expect(client.callTool("prepare_report", { topic, pauseMs })).rejects.toThrow(/the caller stops here/);
  return ids.at(-1)!;
}

/** Reads a subscription until a notification says the task is `status`. */
async function statusSeen(sub: Subscription, taskId: string, status: string): Promise<ServerNotification> {
  for await (const n of sub) if (n.params.taskId === taskId && n.params.status === status) return n;
  throw new Error("the subscription ended");
}

describe("client task API", () => {
  for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
    it(`${protocol}: a task is picked up again by id, its question answered, its status pushed to a listener of its id`, async () => {
      const ids: string[] = [];
      const first = await McpClient.connect(MCP_URL, {
        protocol,
        fetch: engineFetch,
        ...droppingCaller(ids),
      });
      const taskId = await startAndDrop(first, ids, "lichen");
      // 2026-07-28 tasks belong to their principal, so a new client (after a restart) may take it up; an
      // anonymous 2025-11-25 task belongs to its session, so there it is the same client.
      const again =
        protocol === "2026-07-28"
          ? await McpClient.connect(MCP_URL, { protocol, fetch: engineFetch, tasks: true, handlers: answers })
          : first;
      try {
        expect(["working", "input_required"]).toContain((await again.tasks.get(taskId)).status);
        const sub = await again.listen({ taskIds: [taskId] });
        if (protocol === "2026-07-28") expect(sub.filter.taskIds).toEqual([taskId]);
        const seen = statusSeen(sub, taskId, "completed");
        const result = await again.tasks.result(taskId);
        expect(textOf(result)).toContain("5 words on lichen");
        expect((await seen).method).toBe(protocol === "2026-07-28" ? "notifications/tasks" : "notifications/tasks/status");
        sub.close();
        expect((await again.tasks.get(taskId)).status).toBe("completed");
      } finally {
        await again.close();
        await first.close();
      }
    });

    it(`${protocol}: a task is cancelled by id`, async () => {
      const ids: string[] = [];
      const client = await McpClient.connect(MCP_URL, {
        protocol,
        fetch: engineFetch,
        sessionStream: false,
        ...droppingCaller(ids),
      });
      try {
        // Its outline takes 5 s: it is still working when cancelled.
        const taskId = await startAndDrop(client, ids, "slate", 5_000);
        await client.tasks.cancel(taskId);
        expect((await client.tasks.get(taskId)).status).toBe("cancelled");
        await expect(client.tasks.result(taskId)).rejects.toBeInstanceOf(McpClientError);
      } finally {
        await client.close();
      }
    });
  }

  it("2025-11-25: a task picked up again by id sends its progress to the new caller's onProgress", async () => {
    const ids: string[] = [];
    const client = await McpClient.connect(MCP_URL, { protocol: "2025-11-25", fetch: engineFetch, ...droppingCaller(ids) });
    try {
      // The first caller asked for progress (so the task has a token), then stopped following it.
      await expect(client.callTool("prepare_report", { topic: "moss" }, { onProgress: () => {} })).rejects.toThrow(/the caller stops here/);
      const taskId = ids.at(-1)!;
      const seen: string[] = [];
      const result = await client.tasks.result(taskId, { onProgress: (p) => seen.push(`${p.progress}/${p.total} ${p.message}`) });
      expect(textOf(result)).toContain("5 words on moss");
      // "writing" comes after the question, which is answered on the tasks/result stream: always after the pick-up.
      expect(seen).toContain("2/3 writing");
    } finally {
      await client.close();
    }
  });

  it("2026-07-28 has no tasks/list, and the task API needs a client that takes tasks", async () => {
    const takes = await McpClient.connect(MCP_URL, { protocol: "2026-07-28", fetch: engineFetch, tasks: true });
    await expect(takes.tasks.list()).rejects.toThrow(/tasks\/list does not exist in 2026-07-28/);
    const plain = await McpClient.connect(MCP_URL, { protocol: "2026-07-28", fetch: engineFetch });
    await expect(plain.tasks.get("x")).rejects.toThrow(/tasks option/);
  });
});

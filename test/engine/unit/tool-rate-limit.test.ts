/**
 * toolRateLimit counts a task-augmented call once, when the task is made (where the policy sees the
 * caller's auth): the task's own runs, which carry ctx.task, spend nothing of the owner's budget.
 */
import { describe, expect, it } from "vitest";
import type { Operation } from "../../../src/engine/mcp/app";
import { toolRateLimit } from "../../../src/engine/mcp/tool-rate-limit";

describe("toolRateLimit and tasks", () => {
  it("spends the budget for a call, and not for a task's run of it", async () => {
    const keys: string[] = [];
    const binding = { limit: async ({ key }: { key: string }) => (keys.push(key), { success: true }) } as unknown as RateLimit;
    const limit = toolRateLimit(() => binding);
    const op = (task?: { id: string }) =>
      ({
        method: "tools/call",
        name: "report",
        arguments: {},
        auth: task ? undefined : { principal: "ada", scopes: [], claims: {} },
        caller: { principal: "ada", scopes: [], claims: {}, authenticated: true, rateLimitKey: "principal:ada" },
        ctx: { env: {}, principal: "ada", task },
      }) as unknown as Operation;
    const next = async () => ({ content: [] });
    await limit(op(), next);
    await limit(op({ id: "t1" }), next);
    expect(keys).toEqual(["principal:ada\nreport"]);
  });
});

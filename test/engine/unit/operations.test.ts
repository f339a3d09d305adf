/**
 * The one operation model (src/engine/mcp/operations.ts): what each method names, whose scopes guard
 * it, which span attribute carries it, whether Mcp-Name mirrors it and whether it may ask for input.
 * Every consumer (authorization, middleware, spans, logs, metrics, headers, input rounds) reads these
 * answers, so this table is the contract they share.
 */
import { describe, expect, it } from "vitest";
import { operationOf, operationRow, takesInput } from "../../../src/engine/mcp/operations";

type Row = [
  method: string,
  params: Record<string, unknown>,
  expected: Record<string, unknown> | undefined,
  routed: boolean,
  input: boolean,
];

const ROWS: Row[] = [
  [
    "tools/call",
    { name: "roll", arguments: { sides: 6 } },
    { kind: "tool", target: "roll", attribute: "gen_ai.tool.name", guard: { of: "tool", name: "roll" }, arguments: { sides: 6 } },
    true,
    true,
  ],
  ["tools/call", { name: "roll" }, { kind: "tool", target: "roll", guard: { of: "tool", name: "roll" }, arguments: {} }, true, true],
  [
    "prompts/get",
    { name: "greet", arguments: { who: "Ada" } },
    { kind: "prompt", target: "greet", attribute: "gen_ai.prompt.name", guard: { of: "prompt", name: "greet" }, arguments: { who: "Ada" } },
    true,
    true,
  ],
  [
    "resources/read",
    { uri: "notes://1?t=x" },
    { kind: "resource", target: "notes://1?t=x", attribute: "mcp.resource.uri", guard: { of: "resource", name: "notes://1?t=x" } },
    true,
    true,
  ],
  [
    "resources/subscribe",
    { uri: "vault://k" },
    { kind: "subscription", target: "vault://k", guard: { of: "resource", name: "vault://k" } },
    false,
    false,
  ],
  ["resources/unsubscribe", { uri: "vault://k" }, { kind: "subscription", target: "vault://k", guard: undefined }, false, false],
  [
    "completion/complete",
    { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "who", value: "A" } },
    { kind: "completion", target: "greet", attribute: "gen_ai.prompt.name", guard: { of: "prompt", name: "greet" } },
    false,
    false,
  ],
  [
    "completion/complete",
    {
      ref: { type: "ref/resource", uri: "vault://{key}" },
      argument: { name: "key", value: "a" },
      context: { arguments: { zone: "eu", n: 3 } },
    },
    {
      kind: "completion",
      target: "vault://{key}",
      attribute: "mcp.resource.uri",
      guard: { of: "template", name: "vault://{key}" },
      arguments: { context: { arguments: { zone: "eu", n: 3 } } },
    },
    false,
    false,
  ],
  ["completion/complete", { ref: { type: "ref/other", uri: "x" } }, { kind: "completion", guard: undefined }, false, false],
  ["completion/complete", { ref: "nonsense" }, { kind: "completion", target: undefined, guard: undefined }, false, false],
  ["tasks/get", { taskId: "t-1" }, { kind: "task", target: "t-1", attribute: "mcp.task.id", guard: undefined }, true, false],
  ["tasks/update", { taskId: "t-1" }, { kind: "task", target: "t-1" }, true, false],
  ["tasks/cancel", { taskId: "t-1" }, { kind: "task", target: "t-1" }, true, false],
  ["tasks/result", { taskId: "t-1" }, { kind: "task", target: "t-1" }, false, false],
  // A name that is no string names nothing (but Mcp-Name still compares the raw value).
  ["tools/call", { name: 42 }, { kind: "tool", target: undefined, guard: undefined }, true, true],
  // Methods that name no operation, and names a client made up.
  ["tools/list", {}, undefined, false, false],
  ["subscriptions/listen", { notifications: {} }, undefined, false, false],
  ["initialize", {}, undefined, false, false],
  ["constructor", {}, undefined, false, false],
  ["__proto__", {}, undefined, false, false],
  ["x".repeat(20_000), {}, undefined, false, false],
];

describe("operationOf: the one table of methods that name an operation", () => {
  for (const [method, params, expected, routed, input] of ROWS) {
    it(`${method.slice(0, 40)} ${JSON.stringify(params).slice(0, 80)}`, () => {
      const op = operationOf(method, params);
      if (expected === undefined) expect(op).toBeUndefined();
      else expect(op).toMatchObject({ method, ...expected });
      expect(operationRow(method)?.routed === true).toBe(routed);
      expect(takesInput(method)).toBe(input);
    });
  }
});

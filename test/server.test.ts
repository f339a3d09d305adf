/**
 * The example app's own tests: every tool, resource, prompt and completion, called in-process
 * through `testClient` (no HTTP, no wrangler). A fork replaces this file together with
 * src/server.ts; the engine's tests live elsewhere and do not use the example.
 */
import { describe, expect, it } from "vitest";
import { testClient } from "../src/mcp";
import app, { convertTemperature, countdown, greet, rollDice, temperatureReport } from "../src/server";

const text = (result: { content: { type: string; text?: string }[] }) => result.content.map((c) => c.text ?? "").join("");

describe("example app", () => {
  const c = testClient(app);

  it("lists its five tools with their schemas", async () => {
    const tools = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(["convert_temperature", "roll_dice", "greet", "countdown", "temperature_report"]);
    expect(tools[0]).toMatchObject({ inputSchema: { type: "object", required: ["value", "from"] }, outputSchema: { type: "object" } });
  });

  it("convert_temperature answers structured output", async () => {
    const result = await c.callTool(convertTemperature, { value: 100, from: "celsius" });
    expect(result.structuredContent).toEqual({ celsius: 100, fahrenheit: 212, kelvin: 373.15 });
  });

  it("convert_temperature below absolute zero is an error the model can read", async () => {
    const result = await c.callTool(convertTemperature, { value: -500, from: "kelvin" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/absolute zero/);
  });

  it("invalid arguments are an isError result naming the field", async () => {
    // A model can send anything; the cast stands for a call the types would refuse.
    const result = await c.callTool("convert_temperature", { value: "hot", from: "celsius" } as never);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/value/);
  });

  it("roll_dice rolls within its bounds", async () => {
    const result = await c.callTool(rollDice, { sides: 6, count: 3 });
    const m = /^Rolled 3d6: (\d), (\d), (\d) \(total (\d+)\)$/.exec(text(result));
    expect(m).not.toBeNull();
    const rolls = m!.slice(1, 4).map(Number);
    expect(rolls.every((r) => r >= 1 && r <= 6)).toBe(true);
    expect(Number(m![4])).toBe(rolls.reduce((a, b) => a + b, 0));
  });

  it("greet asks the user's name and greets them", async () => {
    const result = await c.callTool(greet, {}, { answers: { who: { action: "accept", content: { name: "Ada" } } } });
    expect(text(result)).toBe("Hello, Ada!");
  });

  it("greet without a name still says hello", async () => {
    const result = await c.callTool(greet, {}, { answers: { who: { action: "decline" } } });
    expect(text(result)).toBe("No name given; hello anyway!");
  });

  it("greet's question is a form asking for a name", async () => {
    const asked: unknown[] = [];
    await c.callTool(greet, {}, { answers: (_key, request) => (asked.push(request), { action: "cancel" }) });
    expect(asked).toEqual([
      {
        method: "elicitation/create",
        params: expect.objectContaining({ mode: "form", requestedSchema: expect.objectContaining({ required: ["name"] }) }),
      },
    ]);
  });

  it("countdown reports increasing progress and ends with liftoff", async () => {
    const before = c.record.notifications.length;
    const result = await c.callTool(countdown, { from: 2 });
    expect(text(result)).toBe("Liftoff!");
    const progress = c.record.notifications.slice(before).filter((n) => n.method === "notifications/progress");
    expect(progress.map((n) => n.params?.progress)).toEqual([0, 1, 2]);
  });

  it("temperature_report checks each reading, asks for the unit, and summarises in it", async () => {
    const before = c.record.notifications.length;
    const asked: string[] = [];
    const result = await c.callTool(
      temperatureReport,
      { readings: [10, 20, 30] },
      {
        answers: (key) => (asked.push(key), { action: "accept", content: { unit: "fahrenheit" } }),
      },
    );
    expect(text(result)).toBe("3 readings in fahrenheit: mean 68, lowest 50, highest 86");
    expect(asked).toEqual(["unit"]);
    const progress = c.record.notifications.slice(before).filter((n) => n.method === "notifications/progress");
    // The handler runs again once the answer is in; its finished steps are kept, its progress is said again.
    expect([...new Set(progress.map((n) => n.params?.message))]).toEqual([
      "checked 1 of 3 readings",
      "checked 2 of 3 readings",
      "checked 3 of 3 readings",
    ]);
  });

  it("temperature_report reports in Celsius when the user declines to choose", async () => {
    const result = await c.callTool(temperatureReport, { readings: [-5] }, { answers: { unit: { action: "decline" } } });
    expect(text(result)).toBe("1 readings in celsius: mean -5, lowest -5, highest -5");
  });

  it("the about resource is markdown", async () => {
    const [contents] = await c.readResource("info://about");
    expect(contents).toMatchObject({ uri: "info://about", mimeType: "text/markdown" });
  });

  it("the unit template reads each unit, and an unknown one is not found", async () => {
    const [kelvin] = await c.readResource("units://kelvin");
    expect(kelvin).toMatchObject({ text: expect.stringContaining("absolute zero") });
    await expect(c.readResource("units://rankine")).rejects.toThrow(/not found/i);
  });

  it("explain_unit builds one user message", async () => {
    const result = await c.getPrompt("explain_unit", { unit: "celsius" });
    expect(result.messages).toEqual([{ role: "user", content: { type: "text", text: expect.stringContaining("celsius") } }]);
  });

  it("units complete from a prefix, for the prompt and the template", async () => {
    expect(await c.complete({ prompt: "explain_unit" }, "unit", "c")).toEqual(["celsius"]);
    expect(await c.complete({ uriTemplate: "units://{unit}" }, "unit", "")).toEqual(["celsius", "fahrenheit", "kelvin"]);
  });
});

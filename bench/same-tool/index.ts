/**
 * Bench-only (never deployed): the peers' one tool, convert_temperature, served by the engine,
 * so the bundle is compared with theirs for the same app. The engine test app carries every
 * feature's code and its fixture tools, where each peer serves this one tool. It imports only
 * the engine's public module, as any app does.
 */
import * as v from "valibot";
import { ToolError, createMcpWorker, defineApp, defineTool } from "../../src/mcp";

const toCelsius = (value: number, unit: string) =>
  unit === "celsius" ? value : unit === "fahrenheit" ? ((value - 32) * 5) / 9 : value - 273.15;
const round2 = (n: number) => Math.round(n * 100) / 100;

const convertTemperature = defineTool({
  name: "convert_temperature",
  title: "Convert a temperature",
  description: "Converts a temperature between Celsius, Fahrenheit and Kelvin.",
  annotations: { readOnlyHint: true, openWorldHint: false },
  input: v.object({
    value: v.pipe(v.number(), v.description("The temperature to convert")),
    from: v.pipe(v.picklist(["celsius", "fahrenheit", "kelvin"]), v.description("The unit of value")),
  }),
  output: v.object({ celsius: v.number(), fahrenheit: v.number(), kelvin: v.number() }),
  handler: ({ value, from }) => {
    const c = toCelsius(value, from);
    if (c < -273.15) throw new ToolError("That is below absolute zero.");
    return { celsius: round2(c), fahrenheit: round2((c * 9) / 5 + 32), kelvin: round2(c + 273.15) };
  },
});

const worker = createMcpWorker(defineApp({ info: { name: "bench-same-tool", version: "0.1.0" }, tools: [convertTemperature] }));
export const { McpHub, McpSession, McpTask } = worker;
export default worker;

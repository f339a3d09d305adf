/**
 * The engine's own test app: the tools, resources, prompt and completions the
 * integration, e2e, load and bench code drive (greet, countdown,
 * convert_temperature, roll_dice, chatter, prepare_report, quick_task, announce, info://about,
 * units://{unit}, explain_unit).
 * It mirrors the example app on purpose but lives here, so that a fork that
 * replaces src/server.ts keeps every engine test green.
 */
import * as v from "valibot";
import {
  ResourceNotFound,
  ToolError,
  defineApp,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  durableTask,
  elicit,
  text,
} from "../../../src/mcp";

const UNITS: Record<string, string> = {
  celsius: "Degrees Celsius: water freezes at 0 and boils at 100 at sea level.",
  fahrenheit: "Degrees Fahrenheit: water freezes at 32 and boils at 212 at sea level.",
  kelvin: "Kelvin: the SI unit of temperature, starting at absolute zero.",
};

const toCelsius = (value: number, unit: string) =>
  unit === "celsius" ? value : unit === "fahrenheit" ? ((value - 32) * 5) / 9 : value - 273.15;
const round2 = (n: number) => Math.round(n * 100) / 100;

const Unit = v.picklist(["celsius", "fahrenheit", "kelvin"]);

export const convertTemperature = defineTool({
  name: "convert_temperature",
  title: "Convert a temperature",
  description: "Converts a temperature between Celsius, Fahrenheit and Kelvin.",
  annotations: { readOnlyHint: true, openWorldHint: false },
  input: v.object({
    value: v.pipe(v.number(), v.description("The temperature to convert")),
    from: v.pipe(Unit, v.description("The unit of value")),
  }),
  output: v.object({ celsius: v.number(), fahrenheit: v.number(), kelvin: v.number() }),
  handler: ({ value, from }) => {
    const c = toCelsius(value, from);
    if (c < -273.15) throw new ToolError("That is below absolute zero.");
    return { celsius: round2(c), fahrenheit: round2((c * 9) / 5 + 32), kelvin: round2(c + 273.15) };
  },
});

export const rollDice = defineTool({
  name: "roll_dice",
  title: "Roll dice",
  description: "Rolls dice and reports each roll and the total.",
  annotations: { readOnlyHint: true, openWorldHint: false },
  input: v.object({
    sides: v.optional(v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(1000)), 6),
    count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 1),
  }),
  handler: ({ sides, count }) => {
    const rolls = Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides));
    return `Rolled ${count}d${sides}: ${rolls.join(", ")} (total ${rolls.reduce((a, b) => a + b, 0)})`;
  },
});

export const greet = defineTool({
  name: "greet",
  title: "Greet the user",
  description: "Asks the user for their name (elicitation) and greets them.",
  input: v.object({}),
  handler: (_args, ctx) => {
    const { who } = ctx.input.ask({
      who: elicit("What is your name?", { name: { type: "string", title: "Your name" } }, ["name"]),
    });
    if (who.action !== "accept") return "No name given; hello anyway!";
    return `Hello, ${String(who.content?.name ?? "friend")}!`;
  },
});

export const countdown = defineTool({
  name: "countdown",
  title: "Count down",
  description: "Counts down from n, reporting progress and a log line at each step.",
  input: v.object({ from: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10)), 3) }),
  handler: async ({ from }, ctx) => {
    for (let i = from; i > 0; i--) {
      if (ctx.signal.aborted) return "Cancelled.";
      ctx.progress(from - i, from, `${i}…`);
      ctx.log("info", `countdown at ${i}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    ctx.progress(from, from, "liftoff");
    return "Liftoff!";
  },
});

/** Streams tests: emits `count` log messages of `size` copies of `char` as fast as it can (no waits). */
export const chatter = defineTool({
  name: "chatter",
  title: "Chatter",
  description: "Emits many log messages at once; the stream tests use it to fill event logs and SSE buffers.",
  input: v.object({
    count: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000)),
    size: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000)),
    char: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2)), "x"),
  }),
  handler: async ({ count, size, char }, ctx) => {
    const line = char.repeat(size);
    let sent = 0;
    for (; sent < count && !ctx.signal.aborted; sent++) {
      ctx.log("info", line);
      // Yield now and then, so a cancellation (a closed stream) can reach the handler.
      if (sent % 16 === 15) await new Promise((r) => setTimeout(r, 0));
    }
    return `sent ${sent}`;
  },
});

/**
 * How many times each step's work really ran, by task id and step name. Module state outlives an
 * evicted object (the isolate stays), so the eviction tests can see a finished step is not run again.
 */
export const stepRuns = new Map<string, number>();

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Tasks tests: a durable task in two steps, with progress and one question between them. */
export const prepareReport = defineTool({
  name: "prepare_report",
  title: "Prepare a report",
  description: "Outlines a report, asks how long it should be, then writes it (a task when the client takes tasks).",
  input: v.object({
    topic: v.string(),
    pauseMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(60_000)), 0),
    // Each pause ignores cancellation, like a step waiting on something that takes no signal.
    deaf: v.optional(v.boolean(), false),
    // Also asks for the tone, in the same round as the length: two questions a client can answer apart.
    tone: v.optional(v.boolean(), false),
  }),
  task: durableTask("optional"),
  handler: async ({ topic, pauseMs, deaf, tone }, ctx) => {
    const runs = (step: string) => `${ctx.task?.id ?? "request"}:${step}`;
    const work = async <T>(step: string, make: () => T) => {
      stepRuns.set(runs(step), (stepRuns.get(runs(step)) ?? 0) + 1);
      await pause(pauseMs, deaf ? new AbortController().signal : ctx.signal);
      return make();
    };
    const outline = await ctx.step("outline", () => work("outline", () => `an outline of ${topic}`));
    ctx.progress(1, 3, "outlined");
    const { length } = ctx.input.ask({
      length: elicit(`How long should the report on ${topic} be?`, { words: { type: "integer", title: "Words" } }, ["words"]),
      ...(tone
        ? { tone: elicit(`What tone should the report on ${topic} take?`, { tone: { type: "string", title: "Tone" } }, ["tone"]) }
        : {}),
    });
    const words = length.action === "accept" ? Number(length.content?.words) : 100;
    ctx.progress(2, 3, "writing");
    const body = await ctx.step("write", () => work("write", () => `${words} words on ${topic}`));
    return `Report: ${outline}, then ${body} (outline ran ${stepRuns.get(runs("outline")) ?? 0}×, write ${stepRuns.get(runs("write")) ?? 0}×)`;
  },
});

/** Bench: a task that finishes as soon as it runs, so create → completed measures the task machinery alone. */
export const quickTask = defineTool({
  name: "quick_task",
  title: "Quick task",
  description: "Echoes n back at once (a task when the client takes tasks).",
  input: v.object({
    n: v.pipe(v.number(), v.integer()),
    // Storage tests: this many more characters in the result.
    pad: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2_000_000)), 0),
    // Ends with a tool error (an isError result) instead.
    fail: v.optional(v.boolean(), false),
  }),
  task: durableTask("optional"),
  handler: ({ n, pad, fail }) => {
    if (fail) throw new ToolError(`quick task ${n} failed on purpose`);
    return `done ${n}${"x".repeat(pad)}`;
  },
});

/**
 * Publishes a tools list change to every listen stream and 2025 session, as an app does after its
 * tools changed, and answers how long the publish took in the Worker (the bench's fan-out phase).
 */
export const announce = defineTool({
  name: "announce",
  title: "Announce a tools list change",
  description: "Publishes notifications/tools/list_changed to every listener; answers the publish's duration in ms.",
  annotations: { openWorldHint: false },
  input: v.object({}),
  output: v.object({ publishMs: v.number() }),
  handler: async (_args, ctx) => {
    const t0 = Date.now();
    await ctx.notify.toolsListChanged();
    return { publishMs: Date.now() - t0 };
  },
});

export default defineApp({
  info: { name: "engine-test-app", title: "Engine test app", version: "0.1.0" },
  instructions: "Temperature conversion, dice and a greeting. Units are celsius, fahrenheit and kelvin.",
  tools: [convertTemperature, rollDice, greet, countdown, chatter, prepareReport, quickTask, announce],
  resources: [
    defineResource({
      uri: "info://about",
      name: "about",
      title: "About this server",
      mimeType: "text/markdown",
      read: () => "# Engine test app\n\nServes MCP 2026-07-28 and 2025-11-25 from one `/mcp` endpoint.",
    }),
  ],
  resourceTemplates: [
    defineResourceTemplate({
      uriTemplate: "units://{unit}",
      name: "unit",
      title: "A temperature unit",
      mimeType: "text/plain",
      read: ({ unit }, uri) => {
        // Own keys only: "units://__proto__" or "units://constructor" must be not found, not Object's.
        const about = Object.hasOwn(UNITS, unit!) ? UNITS[unit!] : undefined;
        if (!about) throw new ResourceNotFound(uri);
        return about;
      },
      complete: { unit: (value) => Object.keys(UNITS).filter((u) => u.startsWith(value)) },
    }),
  ],
  prompts: [
    definePrompt({
      name: "explain_unit",
      title: "Explain a unit",
      description: "Asks the model to explain a temperature unit.",
      arguments: [{ name: "unit", description: "celsius, fahrenheit or kelvin", required: true }],
      get: ({ unit = "" }) => {
        // A ToolError from a prompt is -32602 with its message: the caller asked for something wrong.
        if (!Object.hasOwn(UNITS, unit)) throw new ToolError(`No unit called ${unit}; use celsius, fahrenheit or kelvin.`);
        return [{ role: "user", content: text(`Explain the ${unit} temperature scale in two sentences.`) }];
      },
      complete: { unit: (value) => Object.keys(UNITS).filter((u) => u.startsWith(value)) },
    }),
  ],
});

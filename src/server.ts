/**
 * ─────────────────────────────────────────────────────────────────────────
 *  The example MCP server. This is the file to edit first.
 *
 *  Add a tool: append a `defineTool({...})` to `tools`. Arguments are a
 *  valibot object schema (validated before your handler runs; their JSON
 *  Schema is computed once, on the first request). Return a string, content blocks,
 *  or — with an `output` schema — a structured value.
 *
 *  Ask the user something: `ctx.input.ask({ key: elicit(...) })` returns the
 *  answers when the client has given them and otherwise stops the handler;
 *  it runs again with the answers (2026: MRTR retry; 2025: session request).
 *
 *  Show a result in the host: `view: defineView({...})` on a tool (MCP Apps);
 *  the view's HTML is a file under assets/, deployed as a Static Asset.
 *
 *  Long work: `task: durableTask("optional")` lets the call run as a durable
 *  task when the client takes tasks (an app without it bundles no task code); wrap each expensive piece in `ctx.step(name, fn)` so a
 *  re-run (after the user answers, or after a restart) skips finished work.
 * ─────────────────────────────────────────────────────────────────────────
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
  defineView,
  discovery,
  durableTask,
  elicit,
  resultBudget,
  text,
} from "./mcp";

const UNITS: Record<string, string> = {
  celsius: "Degrees Celsius: water freezes at 0 and boils at 100 at sea level.",
  fahrenheit: "Degrees Fahrenheit: water freezes at 32 and boils at 212 at sea level.",
  kelvin: "Kelvin: the SI unit of temperature, starting at absolute zero.",
};

const toCelsius = (value: number, unit: string) =>
  unit === "celsius" ? value : unit === "fahrenheit" ? ((value - 32) * 5) / 9 : value - 273.15;
const round2 = (n: number) => Math.round(n * 100) / 100;

const Unit = v.picklist(["celsius", "fahrenheit", "kelvin"]);

/** An interactive view (MCP Apps) of a conversion; its HTML is assets/views/convert.html, a Static Asset. */
const temperatureView = defineView({
  uri: "ui://temperature/convert.html",
  name: "temperature_view",
  title: "Temperature in three units",
  asset: "/views/convert.html",
  prefersBorder: true,
});

export const convertTemperature = defineTool({
  name: "convert_temperature",
  title: "Convert a temperature",
  description: "Converts a temperature between Celsius, Fahrenheit and Kelvin.",
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  input: v.object({
    value: v.pipe(v.number(), v.description("The temperature to convert")),
    from: v.pipe(Unit, v.description("The unit of value")),
  }),
  output: v.object({ celsius: v.number(), fahrenheit: v.number(), kelvin: v.number() }),
  // Hosts with MCP Apps show the result in this view; others read the result's text.
  view: temperatureView,
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
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
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
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
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
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
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

/** Stands in for slow work: an API or a model call. */
const slowly = <T>(value: T, ms = 250) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

export const temperatureReport = defineTool({
  name: "temperature_report",
  title: "Write a temperature report",
  description:
    "Checks each reading in turn, asks which unit to report in, then summarises. Runs as a task when the client supports tasks, so it survives the client going away.",
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  input: v.object({
    readings: v.pipe(v.array(v.number()), v.minLength(1), v.maxLength(24), v.description("Readings in degrees Celsius")),
  }),
  task: durableTask("optional"),
  handler: async ({ readings }, ctx) => {
    const checked: number[] = [];
    for (const [i, reading] of readings.entries()) {
      // A finished step is kept with the task: when the handler runs again it gets the kept value at once.
      checked.push(await ctx.step(`reading-${i}`, () => slowly(round2(reading))));
      ctx.progress(i + 1, readings.length, `checked ${i + 1} of ${readings.length} readings`);
    }
    const { unit } = ctx.input.ask({
      unit: elicit("Report in which unit?", { unit: { type: "string", title: "Unit", enum: ["celsius", "fahrenheit", "kelvin"] } }, [
        "unit",
      ]),
    });
    const to = unit.action === "accept" && typeof unit.content?.unit === "string" ? unit.content.unit : "celsius";
    const shown = checked.map((c) => (to === "fahrenheit" ? round2((c * 9) / 5 + 32) : to === "kelvin" ? round2(c + 273.15) : c));
    const mean = round2(shown.reduce((a, b) => a + b, 0) / shown.length);
    return `${shown.length} readings in ${to}: mean ${mean}, lowest ${Math.min(...shown)}, highest ${Math.max(...shown)}`;
  },
});

export default defineApp({
  info: {
    name: "example-mcp-worker",
    title: "Example MCP Worker",
    version: "0.1.0",
    description: "Temperature conversion, dice and a greeting: an example MCP server on Cloudflare Workers.",
  },
  // Its Server Card, the AI Catalog and a page for browsers (docs/discovery.md). The card's name is
  // derived from the host unless you set one you can prove: discovery({ name: "io.github.you/weather" }).
  discovery: discovery(),
  // A result over 50,000 characters (more than hosts take) is cut, and linked whole for the same caller
  // for an hour (docs/results.md); a tool's own `maxResultChars` overrides it.
  results: resultBudget(),
  instructions: "Temperature conversion, dice and a greeting. Units are celsius, fahrenheit and kelvin.",
  tools: [convertTemperature, rollDice, greet, countdown, temperatureReport],
  resources: [
    defineResource({
      uri: "info://about",
      name: "about",
      title: "About this server",
      mimeType: "text/markdown",
      read: () => "# Example MCP Worker\n\nServes MCP 2026-07-28 and 2025-11-25 from one `/mcp` endpoint.",
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
      get: ({ unit }) => [{ role: "user", content: text(`Explain the ${unit} temperature scale in two sentences.`) }],
      complete: { unit: (value) => Object.keys(UNITS).filter((u) => u.startsWith(value)) },
    }),
  ],
});

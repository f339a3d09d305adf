/**
 * The apps that show what the opt-in extensions cost (test/engine/e2e/bundle.mjs checks them, the bench
 * measures them): one small tool, served alone (none.ts), with a view (view.ts) and beside Skills
 * (skills.ts). Only what the app imports differs between them.
 */
import * as v from "valibot";
import { defineTool, type View } from "../../../src/mcp";

export const info = { name: "ext-cost", version: "0.0.0" };

export const convert = (view?: View) =>
  defineTool({
    name: "convert",
    description: "Converts Celsius to Fahrenheit.",
    input: v.object({ celsius: v.number() }),
    output: v.object({ fahrenheit: v.number() }),
    view,
    handler: ({ celsius }) => ({ fahrenheit: (celsius * 9) / 5 + 32 }),
  });

/**
 * The engine test app with scopes on roll_dice and prepare_report (a task tool): what the engine
 * tests of authorization in a 2025 session's own object run (test/integration/scopes.test.ts).
 * Its session class is bound only in the engine tests (vitest-index.ts), so the engine app's
 * bundle, which the budget measures, carries no authorization code.
 */
import { defineApp, defineAuthorization } from "../../src/mcp";
import engineApp from "./app";

export default defineApp({
  ...engineApp,
  tools: engineApp.tools!.map((t) => (t.name === "roll_dice" || t.name === "prepare_report" ? { ...t, scopes: ["dice:roll"] } : t)),
  authorization: defineAuthorization(),
});

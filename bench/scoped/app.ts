/**
 * Bench-only: the engine test app's convert_temperature behind a static bearer token, twice: once
 * as it is (plain.ts) and once with declared scopes, an implication and a default (scoped.ts), so
 * the CPU the per-operation checks cost reads against the same call (bench/scoped-cpu.mjs).
 */
import { AuthFailure, defineApp, defineAuthorization, type TokenVerifier } from "../../src/mcp";
import { convertTemperature } from "../../test/engine/app/app";

export const verifyToken: TokenVerifier = async (token) => {
  if (token !== "bench-token") throw new AuthFailure("invalid_token", "Unknown token");
  return { id: "bench-user", scopes: ["convert:admin", "mcp:basic"] };
};

export const plainApp = defineApp({ info: { name: "bench-plain", version: "0" }, tools: [convertTemperature] });

export const scopedApp = defineApp({
  info: { name: "bench-scoped", version: "0" },
  tools: [{ ...convertTemperature, scopes: ["convert:use", "mcp:basic"] }],
  authorization: defineAuthorization({ scopes: ["mcp:basic"], implies: { "convert:admin": ["convert:use"] } }),
});

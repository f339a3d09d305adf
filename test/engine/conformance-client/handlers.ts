/**
 * The answers the conformance client gives when a server asks: a form is
 * accepted with each field's default (what a user pressing "submit" on an
 * untouched form sends), sampling returns a fixed message, roots are empty.
 */
import type { InputHandlers } from "../../../src/engine/client";

export function conformanceHandlers(extra: Partial<InputHandlers> = {}): InputHandlers {
  return {
    elicitation: async (params) => {
      if (params.mode === "url") return { action: "accept" };
      const content: Record<string, string | number | boolean | string[]> = {};
      for (const [key, schema] of Object.entries(params.requestedSchema.properties)) {
        const d = (schema as { default?: unknown }).default;
        if (typeof d === "string" || typeof d === "number" || typeof d === "boolean") content[key] = d;
        else if (Array.isArray(d)) content[key] = d.map(String);
      }
      if (Object.keys(content).length === 0) content.confirmed = true;
      return { action: "accept", content };
    },
    sampling: async () => ({
      role: "assistant",
      content: { type: "text", text: "A sampled answer" },
      model: "conformance-model",
      stopReason: "endTurn",
    }),
    roots: async () => ({ roots: [] }),
    ...extra,
  };
}

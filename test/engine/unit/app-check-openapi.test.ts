/**
 * `npm run check:app` (scripts/check-app.mjs) on a fork whose tools come from `fromOpenApi`: the
 * imported tools pass the check, and what the import decided for the document (two operations whose
 * names met after sanitising, a body property with a parameter's name) is named as a note, never a
 * problem; a document `fromOpenApi` cannot import is a problem that says why.
 */
import { describe, expect, it } from "vitest";
import { checkAppNotes } from "../../../src/engine/mcp/check-app";
import { fromOpenApi } from "../../../src/engine/openapi";
// @ts-expect-error: a plain .mjs script without type declarations
import { checkAppDefinitions } from "../../../scripts/check-app.mjs";
// @ts-expect-error: a plain .mjs helper without type declarations
import { scratchFork } from "./scratch-fork.mjs";

const DOCUMENT = {
  openapi: "3.0.3",
  info: { title: "Shop API", version: "1" },
  servers: [{ url: "https://shop.example" }],
  paths: {
    "/orders": { get: { operationId: "orders.list", summary: "List orders" } },
    "/orders/all": { get: { operationId: "orders/list", summary: "List all orders" } },
    "/vars/{name}": {
      patch: {
        operationId: "vars/update",
        summary: "Update a variable",
        parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
        requestBody: { content: { "application/json": { schema: { type: "object", properties: { name: { type: "string" } } } } } },
      },
    },
  },
};

const forkWith = (document: unknown) =>
  scratchFork(`import { defineApp, fromOpenApi } from "./mcp";
export default defineApp({ info: { name: "shop", version: "1" }, tools: fromOpenApi(${JSON.stringify(document)}) });
`);

describe("the app check on imported tools", () => {
  it("passes them, with no directory warning, and names what the import decided as notes", async () => {
    const fork = forkWith(DOCUMENT);
    try {
      const { loaded, problems, warnings, notes, why } = await checkAppDefinitions(fork.root);
      expect(loaded, why).toBe(true);
      expect(problems).toEqual([]);
      expect(warnings).toEqual([]);
      expect(notes).toEqual([
        'OpenAPI import "Shop API": Operation "orders/list" is named "orders_list_2": "orders_list" was taken',
        `OpenAPI import "Shop API": Tool "vars_update": its body's "name" has a parameter's name, so the body is the argument "body"`,
      ]);
    } finally {
      fork.remove();
    }
  });

  it("each import's notes once, however many of its tools the app lists, and none for an app without imports", () => {
    const tools = fromOpenApi(DOCUMENT);
    expect(tools).toHaveLength(3);
    const notes = checkAppNotes({ info: { name: "shop", version: "1" }, tools });
    expect(notes).toHaveLength(2);
    expect(checkAppNotes({ info: { name: "shop", version: "1" }, tools: [] })).toEqual([]);
  });

  it("a document it cannot import is a problem that says why", async () => {
    const fork = forkWith({ ...DOCUMENT, servers: [{ url: "/relative" }] });
    try {
      const { loaded, problems, why } = await checkAppDefinitions(fork.root);
      // The import throws while src/server.ts loads: the check names the reason.
      expect(loaded ? problems.join("\n") : why).toMatch(/Shop API needs options\.baseUrl/);
    } finally {
      fork.remove();
    }
  });
});

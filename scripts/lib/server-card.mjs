// Why: the doctor and the e2e step judge a served Server Card by the extension's own JSON Schema
// (server-card.schema.json beside this file: the generated schema of modelcontextprotocol/
// experimental-ext-server-card, 2026-07-24), with ajv, a devDependency; the unit test loads the same file.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * The card's validator: the list of what is wrong with a card (empty: valid). Throws where ajv is not
 * installed (a fork that dropped its devDependencies).
 * @returns {(card: unknown) => string[]}
 */
export function cardValidator() {
  const require = createRequire(import.meta.url);
  const Ajv2020 = require("ajv/dist/2020").default;
  const addFormats = require("ajv-formats").default;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema(JSON.parse(readFileSync(new URL("./server-card.schema.json", import.meta.url), "utf8")), "card");
  const validate = ajv.getSchema("card#/$defs/ServerCard");
  return (card) => (validate(card) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "the card"} ${e.message}`));
}

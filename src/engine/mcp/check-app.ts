/**
 * Every definition mistake of an app, named, before anything serves it: `npm test`, `npm run dev`
 * and `npm run deploy` run this, so a fork never meets a duplicate name or a schema with no JSON
 * Schema as an "Internal error" in a client. The Worker does not import it: at run time the app is
 * compiled as it is (registry.ts), and this file's checks cost nothing there.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import type { AppDefinition, Surface, ToolDefinition } from "./app";
import { directoryWarnings } from "./directory";
import { discoveryWarnings } from "./discovery";
import { viewHostWarnings } from "./view-hosts";
import { messageOf } from "./errors";
import { outputCannotFit } from "./output-fit";
import { compileApp, isServed } from "./registry";
import { taskOptionsOf } from "./tasks";

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** What a level-1 template may hold between braces; registry.ts compiles nothing else. */
const TEMPLATE_EXPRESSION = /\{([^}]*)\}/g;
const VARIABLE = /^[A-Za-z0-9_]+$/;

/** Each problem of the app's definitions, one line each naming what is wrong; empty when there is none. */
export function checkApp(app: AppDefinition<any>): string[] {
  const problems: string[] = [];
  if (!app || typeof app !== "object") return ["The app is not a defineApp({...}) object (is it the default export?)"];
  if (!nonEmpty(app.info?.name) || !nonEmpty(app.info?.version))
    problems.push('info needs a name and a version, e.g. info: { name: "my-server", version: "1.0.0" }');

  const toolNames = new Set<string>();
  for (const tool of app.tools ?? []) {
    const name = String(tool?.name);
    if (toolNames.has(name)) problems.push(`Tool "${name}" is defined twice`);
    toolNames.add(name);
    if (!TOOL_NAME.test(name)) problems.push(`Tool "${name}": a name is 1-128 characters of A-Z a-z 0-9 _ . - (no spaces)`);
    if (typeof tool.handler !== "function") problems.push(`Tool "${name}" has no handler function`);
    problems.push(...toolSchemaProblems(tool));
    try {
      taskOptionsOf(tool);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }

  const uris = new Set<string>();
  for (const r of app.resources ?? []) {
    const uri = String(r?.uri);
    if (uris.has(uri)) problems.push(`Resource "${uri}" is defined twice`);
    uris.add(uri);
    if (!URI_SCHEME.test(uri)) problems.push(`Resource "${uri}": its uri needs a scheme, e.g. notes://readme`);
    if (!nonEmpty(r.name)) problems.push(`Resource "${uri}" has no name`);
    if (typeof r.read !== "function") problems.push(`Resource "${uri}" has no read function`);
    if (!isServed(r))
      problems.push(`Resource "${uri}": declare it with defineResource({ ... }), which brings the code that serves resources`);
  }

  const templates = new Set<string>();
  for (const t of app.resourceTemplates ?? []) {
    const template = String(t?.uriTemplate);
    if (templates.has(template)) problems.push(`Resource template "${template}" is defined twice`);
    templates.add(template);
    if (!nonEmpty(t.name)) problems.push(`Resource template "${template}" has no name`);
    if (typeof t.read !== "function") problems.push(`Resource template "${template}" has no read function`);
    if (!isServed(t))
      problems.push(
        `Resource template "${template}": declare it with defineResourceTemplate({ ... }), which brings the code that serves it`,
      );
    const variables = templateProblems(template, problems);
    for (const key of Object.keys(t.complete ?? {}))
      if (!variables.includes(key)) problems.push(`Resource template "${template}": complete.${key} names no variable of the template`);
  }

  const promptNames = new Set<string>();
  for (const p of app.prompts ?? []) {
    const name = String(p?.name);
    if (promptNames.has(name)) problems.push(`Prompt "${name}" is defined twice`);
    promptNames.add(name);
    if (!nonEmpty(p.name)) problems.push("A prompt has no name");
    if (typeof p.get !== "function") problems.push(`Prompt "${name}" has no get function`);
    if (!isServed(p)) problems.push(`Prompt "${name}": declare it with definePrompt({ ... }), which brings the code that serves prompts`);
    const args = (p.arguments ?? []).map((a) => a.name);
    for (const [i, arg] of args.entries())
      if (args.indexOf(arg) !== i) problems.push(`Prompt "${name}": argument "${arg}" is declared twice`);
    for (const key of Object.keys(p.complete ?? {}))
      if (!args.includes(key)) problems.push(`Prompt "${name}": complete.${key} names no declared argument`);
  }

  for (const [i, step] of (app.use ?? []).entries())
    if (typeof step !== "function")
      problems.push(`use[${i}]: each middleware step is a function, async (op, next) => ... (docs/middleware.md)`);

  if (app.surface !== undefined) problems.push(...surfaceProblems(app.surface, toolNames));

  // Whatever else the registry refuses (task options, x-mcp-header annotations, a non-object root).
  // A tool's schemas are made when first read (registry.ts compileTool): read here.
  if (problems.length === 0) {
    try {
      const reg = compileApp(app);
      for (const { wire, headerParams } of reg.tools.values()) void [wire.inputSchema, wire.outputSchema, headerParams];
      problems.push(...budgetProblems(app, reg));
    } catch (err) {
      problems.push(messageOf(err));
    }
  }
  return problems;
}

/**
 * Tools whose results cannot fit their budget (docs/results.md): a budget that is no positive whole
 * number, or a declared output whose least JSON is already over it, so that every result is cut and
 * its structured content never reaches the client.
 */
function budgetProblems(app: AppDefinition<any>, reg: ReturnType<typeof compileApp>): string[] {
  const problems: string[] = [];
  for (const [name, tool] of reg.tools) {
    const own = tool.def.maxResultChars;
    if (own !== undefined && own !== false && !(Number.isSafeInteger(own) && own > 0)) {
      problems.push(`Tool "${name}": maxResultChars is a positive whole number of characters, or false`);
      continue;
    }
    const budget = own ?? app.results?.maxChars;
    const over =
      typeof budget === "number" ? outputCannotFit({ name, outputSchema: tool.wire.outputSchema }, budget, "its result budget") : undefined;
    if (over) problems.push(`${over} (raise maxResultChars, docs/results.md)`);
  }
  return problems;
}

/**
 * What would keep the app out of Claude's and ChatGPT's connector directories (directory.ts): warnings,
 * one line each naming the tool and the rule; the app works without fixing them.
 */
export function checkAppWarnings(app: AppDefinition<any>): string[] {
  return [
    ...directoryWarnings((app?.tools ?? []).map((t) => ({ name: String(t?.name), title: t?.title, annotations: t?.annotations }))),
    ...viewHostWarnings(app?.tools ?? []),
    ...(app?.discovery ? discoveryWarnings(app.info, app.discovery.name) : []),
  ];
}

/** Where `fromOpenApi` (src/engine/openapi/) keeps what it decided for a document on each tool it made. */
const IMPORT_NOTES = Symbol.for("mcp.openapi.notes");

/**
 * What imports of OpenAPI documents decided for them, one line each naming the document and the
 * operation: two operations whose names met (the later one suffixed), a name cut at 64 characters, a
 * body kept whole under `body` because a property has a parameter's name. The app works as it is; a
 * fork that wants other names fixes the document (its `operationId`s).
 */
export function checkAppNotes(app: AppDefinition<any>): string[] {
  const seen = new Set<unknown>();
  const lines: string[] = [];
  for (const tool of app?.tools ?? []) {
    const kept = (tool as { [IMPORT_NOTES]?: { document: string; notes: string[] } })?.[IMPORT_NOTES];
    if (!kept || seen.has(kept)) continue;
    seen.add(kept);
    for (const note of kept.notes) lines.push(`OpenAPI import "${kept.document}": ${note}`);
  }
  return lines;
}

/** A surface that is not one a maker made, options that do not fit it, a tool of the app that takes one of its tools' names. */
function surfaceProblems(surface: Surface, toolNames: Set<string>): string[] {
  if (typeof surface?.install !== "function" || !Array.isArray(surface.names) || !Array.isArray(surface.problems))
    return ["surface: make it with toolSearch() or codeMode() (docs/tools-at-scale.md)"];
  const problems = surface.problems.map((p) => `${surface.kind}: ${p}`);
  for (const name of surface.names)
    if (toolNames.has(name)) problems.push(`Tool "${name}" takes the name of the ${surface.kind} surface's own tool: rename it`);
  return problems;
}

const nonEmpty = (s: unknown) => typeof s === "string" && s.trim() !== "";

/** A level-1 template's problems, pushed; returns its variables. */
function templateProblems(template: string, problems: string[]): string[] {
  const at = `Resource template "${template}"`;
  if (!URI_SCHEME.test(template)) problems.push(`${at}: it needs a scheme, e.g. notes://{id}`);
  const variables: string[] = [];
  const expressions = [...template.matchAll(TEMPLATE_EXPRESSION)];
  for (const [, name = ""] of expressions) {
    if (!VARIABLE.test(name)) problems.push(`${at}: {${name}} is not supported (only {name}, RFC 6570 level 1)`);
    else if (variables.includes(name)) problems.push(`${at}: variable {${name}} appears twice`);
    else variables.push(name);
  }
  const outside = template.replace(TEMPLATE_EXPRESSION, "");
  if (outside.includes("{") || outside.includes("}")) problems.push(`${at}: has an unmatched brace`);
  else if (expressions.length === 0) problems.push(`${at}: has no {variable}; a fixed URI is a resource (defineResource)`);
  return variables;
}

/**
 * A tool's schemas that have no JSON Schema (v.custom, v.date, v.instance…) would reach clients as
 * `{}`, which tells a model nothing. Each is named by its field. A tool that gives its JSON Schema
 * itself (`inputSchema`, `outputSchema`) is not asked about the valibot schema beside it.
 */
function toolSchemaProblems(tool: ToolDefinition<any, any, any>): string[] {
  const problems: string[] = [];
  const check = (schema: v.GenericSchema | undefined, raw: unknown, which: "input" | "output") => {
    if (raw !== undefined || !schema) return;
    for (const { path, message } of unconvertible(schema, ""))
      problems.push(
        `Tool "${tool.name}" ${which}${path ? ` field ${path}` : ""}: ${message}; give the tool's JSON Schema as ${which}Schema, or use a schema that has one`,
      );
  };
  check(tool.input, tool.inputSchema, "input");
  check(tool.output, tool.outputSchema, "output");
  return problems;
}

type Walkable = v.GenericSchema & { entries?: Record<string, v.GenericSchema>; wrapped?: v.GenericSchema; item?: v.GenericSchema };

/** The schemas under `schema` that cannot become JSON Schema, with the path of the field that holds each. */
function unconvertible(schema: Walkable, path: string): { path: string; message: string }[] {
  if (schema.entries && typeof schema.entries === "object")
    return Object.entries(schema.entries).flatMap(([key, entry]) => unconvertible(entry as Walkable, path ? `${path}.${key}` : key));
  if (schema.wrapped) return unconvertible(schema.wrapped as Walkable, path);
  if (schema.type === "array" && schema.item) return unconvertible(schema.item as Walkable, `${path}[]`);
  const found: { path: string; message: string }[] = [];
  // Actions that have no JSON Schema (transform, check) only make the schema looser; a schema type
  // without one leaves nothing to describe, and that is what is reported.
  toJsonSchema(schema, {
    errorMode: "ignore",
    overrideSchema: ({ errors }) => {
      for (const message of errors ?? []) found.push({ path, message: message.replace(/\.$/, "") });
      return undefined;
    },
  });
  return found;
}

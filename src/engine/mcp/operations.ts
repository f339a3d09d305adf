/**
 * The operation a request names, defined once. Which tool, prompt, resource, template or task a
 * request is about decides who may run it (authorization.ts), what the app's middleware sees, what
 * its span, log line and metrics are named for (execute.ts, tracing.ts, telemetry.ts), which header
 * must mirror it on 2026-07-28 (http/headers.ts) and whether it may ask the client for input. Every
 * one of those asks `operationOf`, so their rules cannot drift apart: a method that names an
 * operation is one row of OPERATIONS (and its handler), nothing else.
 */
import { isObject } from "./guards";

/** What kind of thing an operation is about. */
export type OperationKind = "tool" | "prompt" | "resource" | "completion" | "subscription" | "task" | "event";

/**
 * The definition whose scopes an operation needs: a tool or prompt by name, a resource by URI (a
 * resource, or a URI a template matches), or a template by its own URI template (the completion of
 * its variables, whose `context.arguments` are in the operation's arguments).
 */
export interface Guard {
  /** `event`: an event type of the Events extension (docs/events.md), whose `scopes` it declares. */
  of: "tool" | "prompt" | "resource" | "template" | "event";
  name: string;
}

/** The span attribute that carries an operation's target (the OTel MCP conventions' names). */
type TargetAttribute = "gen_ai.tool.name" | "gen_ai.prompt.name" | "mcp.resource.uri" | "mcp.task.id";

interface OperationRow {
  readonly kind: OperationKind;
  /** The params member that names the target; "ref": a completion's reference (its name or URI). */
  readonly target: "name" | "uri" | "taskId" | "ref";
  /** 2026-07-28: `Mcp-Name` mirrors the target. */
  readonly routed?: boolean;
  /** The span attribute for the target. */
  readonly attribute?: TargetAttribute;
  /** May answer with an input round (InputRequiredResult, or a 2025 server request). */
  readonly input?: boolean;
  /** Whose scopes it needs: the definition its target names; undefined: none. */
  readonly guard?: Guard["of"];
}

const URI = "mcp.resource.uri";
const TASK: OperationRow = { kind: "task", target: "taskId", attribute: "mcp.task.id", routed: true };
const EVENT: OperationRow = { kind: "event", target: "name", guard: "event" };

/**
 * Every method that names an operation, by name. Methods not here (lists, ping, initialize,
 * logging/setLevel, subscriptions/listen…) name none: they need no definition's scopes and their
 * spans and log lines carry no target. Every request, those too, meets the middleware chain
 * (execute.ts).
 */
const OPERATIONS: Readonly<Record<string, OperationRow>> = {
  "tools/call": { kind: "tool", target: "name", attribute: "gen_ai.tool.name", routed: true, input: true, guard: "tool" },
  "prompts/get": { kind: "prompt", target: "name", attribute: "gen_ai.prompt.name", routed: true, input: true, guard: "prompt" },
  "resources/read": { kind: "resource", target: "uri", attribute: URI, routed: true, input: true, guard: "resource" },
  // Subscribing needs what reading needs; dropping a subscription needs nothing.
  "resources/subscribe": { kind: "subscription", target: "uri", attribute: URI, guard: "resource" },
  "resources/unsubscribe": { kind: "subscription", target: "uri", attribute: URI },
  // Completing a prompt's arguments or a template's variables needs that prompt's or template's scopes.
  "completion/complete": { kind: "completion", target: "ref" },
  "tasks/get": TASK,
  "tasks/update": TASK,
  "tasks/cancel": TASK,
  // 2025-11-25 only, where no header mirrors it.
  "tasks/result": { ...TASK, routed: false },
  // The Events extension (2026-07-28): each needs what its event type declares; dropping a
  // subscription needs nothing, like resources/unsubscribe.
  "events/subscribe": EVENT,
  "events/poll": EVENT,
  "events/stream": EVENT,
  "events/unsubscribe": { kind: "event", target: "name" },
};

/** The operation a request names, as every consumer reads it. */
export interface NamedOperation {
  method: string;
  kind: OperationKind;
  /** The tool or prompt name, resource URI or task id as the client wrote it (a string, else undefined). */
  target?: string;
  /** The span attribute that carries the target. */
  attribute?: TargetAttribute;
  /** Whose scopes it needs. */
  guard?: Guard;
  /** The tool's or prompt's arguments; the params for other methods. */
  arguments: Record<string, unknown>;
}

/** The table's row for a method; undefined for a method that names no operation (or one a client made up). */
export const operationRow = (method: string): OperationRow | undefined =>
  Object.hasOwn(OPERATIONS, method) ? OPERATIONS[method] : undefined;

/** The operation `method` with `params` names; undefined when it names none. */
export function operationOf(method: string, params: Record<string, unknown>): NamedOperation | undefined {
  const row = operationRow(method);
  if (!row) return undefined;
  let { kind, target: key, attribute, guard } = row;
  let source = params;
  if (key === "ref") {
    // A completion names a prompt (ref/prompt) or a template (ref/resource) by its reference.
    source = isObject(params.ref) ? params.ref : {};
    const prompt = source.type === "ref/prompt";
    key = prompt ? "name" : "uri";
    attribute = prompt ? "gen_ai.prompt.name" : URI;
    guard = prompt ? "prompt" : source.type === "ref/resource" ? "template" : undefined;
  }
  const target = typeof source[key] === "string" ? (source[key] as string) : undefined;
  const args = kind === "tool" || kind === "prompt" ? (isObject(params.arguments) ? params.arguments : {}) : params;
  return {
    method,
    kind,
    target,
    attribute,
    guard: guard && target !== undefined ? { of: guard, name: target } : undefined,
    arguments: args,
  };
}

/** Whether a method may answer with an input round. */
export const takesInput = (method: string) => operationRow(method)?.input === true;

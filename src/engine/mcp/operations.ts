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
 * resource, or a URI a template matches), or a template by its own URI template (completion of its
 * variables), with the variables the request already knows.
 */
export type Guard =
  | { of: "tool" | "prompt" | "resource"; name: string }
  | { of: "template"; name: string; vars: Record<string, string> };

/** The span attribute that carries an operation's target (the OTel MCP conventions' names). */
type TargetAttribute = "gen_ai.tool.name" | "gen_ai.prompt.name" | "mcp.resource.uri" | "mcp.task.id";

interface OperationRow {
  readonly kind: OperationKind;
  /** The params member that names the target, raw as the client sent it. */
  readonly target: (params: Record<string, unknown>) => unknown;
  /** The span attribute for the target. */
  readonly attribute: TargetAttribute | ((params: Record<string, unknown>) => TargetAttribute);
  /** The target is a URI: its query and fragment, where tokens travel, never reach a log line. */
  readonly uri?: boolean;
  /** 2026-07-28: `Mcp-Name` mirrors the target. */
  readonly routed?: boolean;
  /** May answer with an input round (InputRequiredResult, or a 2025 server request). */
  readonly input?: boolean;
  /** Whose scopes it needs; undefined: none of a definition's. */
  readonly guard?: (params: Record<string, unknown>) => Guard | undefined;
  /** What middleware sees as its arguments (default: the params). */
  readonly arguments?: (params: Record<string, unknown>) => unknown;
}

const str = (value: unknown) => (typeof value === "string" ? value : undefined);
const named = (of: "tool" | "prompt" | "resource", value: unknown): Guard | undefined => (typeof value === "string" ? { of, name: value } : undefined);
const refOf = (params: Record<string, unknown>) => (isObject(params.ref) ? params.ref : {});

/** The context arguments of a completion as strings (what a template's scopes function is given). */
function stringArguments(params: Record<string, unknown>): Record<string, string> {
  const context = isObject(params.context) && isObject(params.context.arguments) ? params.context.arguments : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(context)) if (typeof v === "string") out[k] = v;
  return out;
}

const TASK: OperationRow = { kind: "task", target: (p) => p.taskId, attribute: "mcp.task.id", routed: true };

/**
 * Every method that names an operation, by name. Methods not here (lists, ping, initialize,
 * logging/setLevel, subscriptions/listen…) name none: they need no definition's scopes and their
 * spans and log lines carry no target.
 */
const OPERATIONS: Readonly<Record<string, OperationRow>> = {
  "tools/call": { kind: "tool", target: (p) => p.name, attribute: "gen_ai.tool.name", routed: true, input: true, guard: (p) => named("tool", p.name), arguments: (p) => p.arguments ?? {} },
  "prompts/get": { kind: "prompt", target: (p) => p.name, attribute: "gen_ai.prompt.name", routed: true, input: true, guard: (p) => named("prompt", p.name), arguments: (p) => p.arguments ?? {} },
  "resources/read": { kind: "resource", target: (p) => p.uri, attribute: "mcp.resource.uri", uri: true, routed: true, input: true, guard: (p) => named("resource", p.uri) },
  // Subscribing needs what reading needs; dropping a subscription needs nothing.
  "resources/subscribe": { kind: "subscription", target: (p) => p.uri, attribute: "mcp.resource.uri", uri: true, guard: (p) => named("resource", p.uri) },
  "resources/unsubscribe": { kind: "subscription", target: (p) => p.uri, attribute: "mcp.resource.uri", uri: true },
  // Completing a prompt's arguments or a template's variables needs that prompt's or template's scopes.
  "completion/complete": {
    kind: "completion",
    target: (p) => refOf(p).name ?? refOf(p).uri,
    attribute: (p) => (refOf(p).type === "ref/prompt" ? "gen_ai.prompt.name" : "mcp.resource.uri"),
    guard(p) {
      const ref = refOf(p);
      if (ref.type === "ref/prompt") return named("prompt", ref.name);
      const uri = str(ref.uri);
      return ref.type === "ref/resource" && uri !== undefined ? { of: "template", name: uri, vars: stringArguments(p) } : undefined;
    },
  },
  "tasks/get": TASK,
  "tasks/update": TASK,
  "tasks/cancel": TASK,
  // 2025-11-25 only, where no header mirrors it.
  "tasks/result": { ...TASK, routed: false },
};

/** The operation a request names, as every consumer reads it. */
export interface NamedOperation {
  method: string;
  kind: OperationKind;
  /** The tool or prompt name, resource URI or task id as the client wrote it (a string, else undefined). */
  target?: string;
  /** The span attribute that carries the target. */
  attribute: TargetAttribute;
  /** Whether the target is a URI. */
  uri: boolean;
  /** Whose scopes it needs. */
  guard?: Guard;
  /** The tool's or prompt's arguments; the params for other methods. */
  arguments: Record<string, unknown>;
}

/** The table's row for a method; undefined for a method that names no operation (or one a client made up). */
export const operationRow = (method: string): OperationRow | undefined => (Object.hasOwn(OPERATIONS, method) ? OPERATIONS[method] : undefined);

/** The operation `method` with `params` names; undefined when it names none. */
export function operationOf(method: string, params: Record<string, unknown>): NamedOperation | undefined {
  const row = operationRow(method);
  if (!row) return undefined;
  const args = row.arguments ? row.arguments(params) : params;
  return {
    method,
    kind: row.kind,
    target: str(row.target(params)),
    attribute: typeof row.attribute === "function" ? row.attribute(params) : row.attribute,
    uri: row.uri === true,
    guard: row.guard?.(params),
    arguments: isObject(args) ? args : {},
  };
}

/** Whether a method may answer with an input round. */
export const takesInput = (method: string) => operationRow(method)?.input === true;

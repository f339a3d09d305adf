/**
 * An app's own tests, in-process: `testClient(app)` calls its tools, reads its
 * resources, gets its prompts and completions through the same executor the
 * Worker uses, without HTTP or wrangler. Input a handler asks for (elicitation,
 * sampling, roots) is answered by the test; what the handler emits (progress,
 * log messages) and publishes (notify) is recorded.
 */
import type { AppDefinition, ToolArgs, ToolDefinition } from "./app";
import { authView, callerOf } from "./auth";
import type { Notifier } from "./context";
import { execute } from "./execute";
import type { InputRequest } from "./input";
import type { JsonRpcNotification } from "./jsonrpc";
import { compileApp, type Registry } from "./registry";
import { MAX_INPUT_ROUNDS } from "./rules";
import { MODERN } from "./revisions";
import { journaled } from "./step-journal";
import type { CallToolResult, ClientCapabilities, GetPromptResult, Json, ResourceContents } from "./types";
import { MODERN_VERSION } from "./versions";

/** Answers by the keys the handler passes to `ctx.input.ask`, or a function that answers each request. */
export type TestAnswers = Record<string, unknown> | ((key: string, request: InputRequest) => unknown);

export interface TestCallOptions {
  answers?: TestAnswers;
  /** Aborting it is a cancellation, as a client closing its stream. */
  signal?: AbortSignal;
}

export interface TestClientOptions<Env> {
  env?: Env;
  /** Who is calling, as authorization would have established it. */
  principal?: string;
  /**
   * The scopes the caller's token holds: with it (or `claims`) the caller is authenticated, as
   * `principal` or "test-user", and the scopes operations declare are checked as the Worker checks
   * them (a refusal rejects with InsufficientScope).
   */
  scopes?: readonly string[];
  /** The caller's token claims; handlers see those the app names in `defineAuthorization({ claims })`. */
  claims?: Record<string, unknown>;
  /** The OAuth client id the caller's token names. */
  clientId?: string;
  /** Client capabilities; by default the client can answer elicitation (form and URL), sampling and roots. */
  capabilities?: ClientCapabilities;
}

/** What a test sees of the client side: emitted notifications and what the app published. */
export interface TestRecord {
  notifications: JsonRpcNotification[];
  published: { method: string; uri?: string }[];
}

const ALL_INPUT: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

export function testClient<A extends AppDefinition<any>>(
  app: A,
  options: TestClientOptions<A extends AppDefinition<infer E> ? E : never> = {},
) {
  const reg = compileApp(app);
  const record: TestRecord = { notifications: [], published: [] };
  const notify = recordingNotifier(record);
  const run = (method: string, params: Record<string, unknown>, call: TestCallOptions = {}) =>
    runToEnd(reg, method, params, call, { ...options, record, notify });

  type Tool = NonNullable<A["tools"]>[number];
  /** Calls a tool by its definition or by its name, with arguments typed by its input schema. */
  function callTool<T extends Tool>(tool: T, args?: ToolArgs<T>, call?: TestCallOptions): Promise<CallToolResult>;
  function callTool<N extends Tool["name"]>(
    name: N,
    args?: ToolArgs<Extract<Tool, { name: N }>>,
    call?: TestCallOptions,
  ): Promise<CallToolResult>;
  function callTool(tool: string | ToolDefinition<any, any, any>, args?: unknown, call?: TestCallOptions): Promise<CallToolResult> {
    const name = typeof tool === "string" ? tool : tool.name;
    return run("tools/call", { name, arguments: args ?? {} }, call);
  }

  return {
    /** Emitted notifications (progress, log messages) and publications (notify), in order. */
    record,
    callTool,
    async readResource(uri: string, call?: TestCallOptions): Promise<ResourceContents[]> {
      return (await run("resources/read", { uri }, call)).contents;
    },
    getPrompt(name: string, args: Record<string, string> = {}, call?: TestCallOptions): Promise<GetPromptResult> {
      return run("prompts/get", { name, arguments: args }, call);
    },
    /** Completion values for a prompt argument (`{ prompt }`) or a resource template variable (`{ uriTemplate }`). */
    async complete(
      ref: { prompt: string } | { uriTemplate: string },
      argument: string,
      value: string,
      context: Record<string, string> = {},
    ): Promise<string[]> {
      const wire = "prompt" in ref ? { type: "ref/prompt", name: ref.prompt } : { type: "ref/resource", uri: ref.uriTemplate };
      const result = await run("completion/complete", { ref: wire, argument: { name: argument, value }, context: { arguments: context } });
      return result.completion.values;
    },
    /**
     * Any other method the app serves, by name: an extension's (`events/list`, `events/poll`,
     * `events/subscribe` of `events([...])`, with the test's `env` holding their bindings) or a core
     * one the helpers above do not wrap. Resolves to the result; an error answer rejects with it.
     */
    request: (method: string, params: Record<string, unknown> = {}, call?: TestCallOptions): Promise<Record<string, any>> =>
      run(method, params, call),
    listTools: async (): Promise<Record<string, unknown>[]> => (await run("tools/list", {})).tools,
    listResources: async (): Promise<Record<string, unknown>[]> => (await run("resources/list", {})).resources,
    listResourceTemplates: async (): Promise<Record<string, unknown>[]> => (await run("resources/templates/list", {})).resourceTemplates,
    listPrompts: async (): Promise<Record<string, unknown>[]> => (await run("prompts/list", {})).prompts,
  };
}

/** Publications go to the record instead of the hub. */
function recordingNotifier(record: TestRecord): Notifier {
  const published = (method: string, uri?: string) => {
    record.published.push(uri === undefined ? { method } : { method, uri });
  };
  return {
    toolsListChanged: async () => published("notifications/tools/list_changed"),
    promptsListChanged: async () => published("notifications/prompts/list_changed"),
    resourcesListChanged: async () => published("notifications/resources/list_changed"),
    resourceUpdated: async (uri) => published("notifications/resources/updated", uri),
  };
}

/** Runs a request as a client would: answering each round of input from the test, until a result. */
async function runToEnd(
  reg: Registry,
  method: string,
  params: Record<string, unknown>,
  call: TestCallOptions,
  client: TestClientOptions<unknown> & { record: TestRecord; notify: Notifier },
): Promise<any> {
  const answers: Record<string, unknown> = {};
  let state: Json | undefined;
  // With scopes or claims the caller is authenticated; with only a principal it is named, not authenticated.
  const authenticated = client.scopes || client.claims;
  const caller = authenticated
    ? callerOf(
        { id: client.principal ?? "test-user", scopes: client.scopes ?? [], clientId: client.clientId, claims: client.claims },
        `test:${client.principal ?? "test-user"}`,
        reg.claimsOf,
      )
    : { ...callerOf(undefined, "test:anonymous"), principal: client.principal ?? "" };
  const auth = authView(caller);
  // As the Worker checks it: without scopes or claims the caller is unauthenticated, and a scoped
  // operation is refused it unless the app sets allowUnauthenticated.
  reg.authorize?.(method, params, auth);
  // A task tool runs as its task would: a step finished in one round is kept for the next.
  const tool = method === "tools/call" && typeof params.name === "string" ? reg.tools.get(params.name) : undefined;
  const steps = new Map<string, unknown>();
  const journal = {
    get: (n: string) => (steps.has(n) ? { value: steps.get(n) } : undefined),
    put: (n: string, v: unknown) => void steps.set(n, v),
  };
  const task = tool?.task ? { id: "test-task", step: journaled(journal) } : undefined;
  for (let round = 1; round <= MAX_INPUT_ROUNDS; round++) {
    const outcome = await execute(method, params, {
      revision: MODERN,
      reg,
      protocolVersion: MODERN_VERSION,
      clientCapabilities: client.capabilities ?? ALL_INPUT,
      clientInfo: { name: "testClient", version: "0" },
      logLevel: "debug",
      progressToken: "test",
      answers,
      state,
      signal: call.signal ?? new AbortController().signal,
      emit: (n) => client.record.notifications.push(n),
      notify: client.notify,
      env: client.env ?? {},
      caller,
      task,
    });
    if (outcome.kind === "result") return outcome.result;
    if (outcome.kind === "error") throw outcome.error;
    // In-process calls run a task tool's handler straight through (canStartTask is not set).
    if (outcome.kind === "task") throw new Error(`${method} tried to become a task in the test client`);
    for (const [key, request] of Object.entries(outcome.required.requests)) answers[key] = answer(call.answers, key, request);
    state = outcome.required.state;
  }
  throw new Error(`${method} still asked for input after ${MAX_INPUT_ROUNDS} rounds`);
}

function answer(answers: TestAnswers | undefined, key: string, request: InputRequest): unknown {
  const given = typeof answers === "function" ? answers(key, request) : answers && Object.hasOwn(answers, key) ? answers[key] : undefined;
  if (given === undefined) {
    throw new Error(
      `The handler asked for input "${key}" (${request.method}: ${JSON.stringify(request.params ?? {})}) and the test gave no answer for it`,
    );
  }
  return given;
}

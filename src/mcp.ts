/**
 * The public door, the one module an app imports: everything to define a server (tools,
 * resources, prompts, completions), the content and input helpers, the errors
 * a handler may throw, the types, and `createMcpWorker`, which turns an app
 * into the Worker's fetch handler and the Durable Object classes wrangler binds.
 */
export {
  defineApp,
  defineTool,
  type AppDefinition,
  type Completer,
  type Extension,
  type ExtensionMethod,
  type PromptArgument,
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceReturn,
  type ResourceTemplateDefinition,
  type ToolAnnotations,
  type ToolArgs,
  type ToolDefinition,
  type ToolReturn,
  type View,
} from "./engine/mcp/app";
export { audio, base64, embedded, image, resourceLink, text } from "./engine/mcp/content";
export type { HandlerContext, Notifier } from "./engine/mcp/context";
export { InsufficientScope, type Auth, type Caller } from "./engine/mcp/auth";
// Checks of the scopes operations declare (docs/authorization.md); an app without it carries none of that code.
export { defineAuthorization } from "./engine/mcp/authorization";
export type { Authorization, AuthorizationOptions, Middleware, Operation, Policy, Scopes } from "./engine/mcp/app";
export type { OperationKind } from "./engine/mcp/operations";
export { toolRateLimit, type ToolRateLimitOptions } from "./engine/mcp/tool-rate-limit";
export { defineMiddleware } from "./engine/mcp/middleware";
export { ErrorCode, McpError, ResourceNotFound, ToolError, invalidParams, missingClientCapability } from "./engine/mcp/errors";
export {
  elicit,
  elicitUrl,
  listRoots,
  sample,
  type AnswerTo,
  type Answers,
  type ElicitRequest,
  type ElicitResult,
  type InputRequest,
  type RootsRequest,
  type SamplingRequest,
  type RootsResult,
  type SamplingParams,
  type SamplingResult,
} from "./engine/mcp/input";
export type * from "./engine/mcp/types";
export type { DurableTask, TaskOptions, TaskSupport } from "./engine/mcp/tasks";
// Opt-in extensions: code an app does not import is left out of its bundle.
export { SKILLS_EXTENSION, skills, type SkillEntry, type SkillsManifest, type SkillsOptions } from "./engine/mcp/ext/skills";
export { UI_EXTENSION, VIEW_MIME_TYPE, defineView, type ViewCsp, type ViewOptions, type ViewPermissions } from "./engine/mcp/ext/apps";
export { defineExtension } from "./engine/mcp/ext/host";
// Found and connected (docs/discovery.md): the Server Card, the AI Catalog and the page for browsers, opt-in.
export { discovery, type DiscoveryOptions } from "./engine/discovery";
export type { Discovery } from "./engine/mcp/discovery";
// Each brings the methods that serve its kind: an app without prompts or resources carries none of them.
// Here, just before the Worker's modules: a bundle lays modules out in import order and gzip shares
// repeats only within 32 KiB, so prompts/get sits near tools/call, which it resembles (about 200 B
// less gzip for an app with prompts than with this line last).
export { definePrompt, defineResource, defineResourceTemplate } from "./engine/mcp/define";
export { UrlElicitationRequired, urlElicitationRequired } from "./engine/mcp/url-elicitation";
export { createMcpWorker, type McpWorker, type WorkerContext, type WorkerOptions } from "./engine/worker";
export { AuthFailure, scopeList, type Principal, type TokenVerifier } from "./engine/http/auth";
// Declares a tool's task and brings the task runtime with it: an app without task tools carries none.
export { durableTask } from "./engine/tasks";
// MCP Events (docs/events.md): `extensions: [events([...])]` brings the McpEvents object and its methods; `emit` publishes.
export {
  defineEvent,
  emit,
  events,
  type DeliveryMode,
  type EmitOptions,
  type EventDefinition,
  type EventSubscriber,
  type EventsOptions,
  type ReplayOptions,
} from "./engine/events";
// Tool results cut to what hosts take, the whole kept and linked (docs/results.md), opt-in.
export { resultBudget, type ResultBudgetOptions } from "./engine/results";
export type { ResultBudget } from "./engine/mcp/result-budget";
// Each caller's own durable storage (ctx.user, docs/state.md), opt-in: an app without `userState` carries none of it.
export { forgetUser, userState, userStore, UserStateError, type UserStateOptions } from "./engine/user";
export type { SqlValue, UserEntry, UserListOptions, UserState, UserStore } from "./engine/mcp/user-state";
// Other MCP servers served as part of this one (docs/mount.md), opt-in: an app without mounts carries no client.
export { mountServer, type MountOptions } from "./engine/mount";
// An OpenAPI document's operations as tools (docs/openapi.md), opt-in: an app that does not import it carries none of it.
export {
  fromOpenApi,
  type CompactDocument,
  type CompactOperation,
  type ImportedOperation,
  type OpenApiOptions,
  type OperationFilter,
} from "./engine/openapi";
// Tools at scale (docs/tools-at-scale.md): a surface lists a few tools in place of many; an app without one carries none of it.
export { toolSearch, type ToolSearchOptions } from "./engine/mcp/surfaces/tool-search";
// Code Mode (docs/code-mode.md): search_tools and execute, the model's code run in a Dynamic Worker; an app without it carries none of it.
export { codeMode, type CodeModeOptions } from "./engine/code-mode/index";
export type { Surface } from "./engine/mcp/app";
// AUTH_MODE=jwt, opt-in: `createMcpWorker(app, { jwt: jwtAuth })`; a Worker without it carries no jose.
export { jwtAuth } from "./engine/http/jwt-auth";
export { testClient, type TestAnswers, type TestCallOptions, type TestClientOptions, type TestRecord } from "./engine/mcp/test-client";

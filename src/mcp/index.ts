/**
 * The one module an app imports: everything to define a server (tools,
 * resources, prompts, completions), the content and input helpers, the errors
 * a handler may throw, the types, and `createMcpWorker`, which turns an app
 * into the Worker's fetch handler and the Durable Object classes wrangler binds.
 */
export {
  defineApp,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  type AppDefinition,
  type Completer,
  type PromptArgument,
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceReturn,
  type ResourceTemplateDefinition,
  type ToolAnnotations,
  type ToolArgs,
  type ToolDefinition,
  type ToolReturn,
} from "./app";
export { audio, base64, embedded, image, resourceLink, text } from "./content";
export type { HandlerContext, Notifier } from "./context";
export { ErrorCode, McpError, ResourceNotFound, ToolError, invalidParams, missingClientCapability } from "./errors";
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
} from "./input";
export type * from "./types";
export type { TaskOptions, TaskSupport } from "./tasks";
export { UrlElicitationRequired, urlElicitationRequired } from "./url-elicitation";
export { createMcpWorker, type McpWorker, type WorkerContext, type WorkerOptions } from "../worker";
export { testClient, type TestAnswers, type TestCallOptions, type TestClientOptions, type TestRecord } from "./test-client";

/**
 * The helpers that declare resources, resource templates and prompts. Each returns the definition it
 * is given (the same object) with the methods that serve its kind on it (registry.ts gathers them),
 * so an app carries the code of prompts/get, resources/read or completion/complete only when it
 * declares what they serve. Completion comes with both prompts and templates: it completes their
 * arguments and variables. A template brings the compiler of its URI template as well.
 */
import type { DefaultEnv, PromptDefinition, ResourceDefinition, ResourceTemplateDefinition } from "./app";
import { COMPLETION_METHODS } from "./methods/completion";
import { PROMPT_METHODS } from "./methods/prompts";
import { RESOURCE_METHODS } from "./methods/resources";
import { servedBy } from "./registry";
import { compileUriTemplate } from "./uri-template";

export const defineResource = <Env = DefaultEnv>(r: ResourceDefinition<Env>) => servedBy(r, { tables: [RESOURCE_METHODS] });
export const defineResourceTemplate = <Env = DefaultEnv>(r: ResourceTemplateDefinition<Env>) =>
  servedBy(r, { tables: [RESOURCE_METHODS, COMPLETION_METHODS], compileTemplate: compileUriTemplate });
export const definePrompt = <Env = DefaultEnv>(p: PromptDefinition<Env>) => servedBy(p, { tables: [PROMPT_METHODS, COMPLETION_METHODS] });

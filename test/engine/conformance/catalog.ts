/** Resources, the resource template and the prompts the conformance suite reads. */
import { definePrompt, defineResource, defineResourceTemplate, embedded, image, text } from "../../../src/mcp";
import { PNG } from "./fixtures";
import { SCOPE } from "./scopes";

/** The first resource is the one the `caching` scenario reads. */
export const resources = [
  defineResource({
    uri: "test://static-text",
    name: "static-text",
    title: "Static Text Resource",
    description: "A static text resource for testing",
    mimeType: "text/plain",
    scopes: [SCOPE.resourcesRead, SCOPE.staticText],
    read: () => "This is the content of the static text resource.",
  }),
  defineResource({
    uri: "test://static-binary",
    name: "static-binary",
    title: "Static Binary Resource",
    description: "A static binary resource (image) for testing",
    mimeType: "image/png",
    read: () => ({ uri: "test://static-binary", mimeType: "image/png", blob: PNG }),
  }),
];

export const template = defineResourceTemplate({
  uriTemplate: "test://template/{id}/data",
  name: "template",
  title: "Template Resource",
  description: "A resource template with parameter substitution",
  mimeType: "application/json",
  // The scope names the id: a token for template 123 reads test://template/123/data and no other.
  scopes: ({ id }) => [SCOPE.resourcesRead, SCOPE.template(id!)],
  read: ({ id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
});

export const prompts = [
  definePrompt({
    name: "test_simple_prompt",
    description: "A simple prompt without arguments",
    scopes: [SCOPE.promptsGet, SCOPE.simplePrompt],
    get: () => [{ role: "user", content: text("This is a simple prompt for testing.") }],
  }),
  definePrompt({
    name: "test_prompt_with_arguments",
    description: "A prompt with required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
    get: ({ arg1, arg2 }) => [{ role: "user", content: text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`) }],
    complete: {
      arg1: (value) => ["testValue1", "testValue2", "hello"].filter((c) => c.startsWith(value)),
      arg2: (value) => ["testValue1", "testValue2", "world"].filter((c) => c.startsWith(value)),
    },
  }),
  definePrompt({
    name: "test_prompt_with_embedded_resource",
    description: "A prompt that includes an embedded resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
    get: ({ resourceUri }) => [
      { role: "user", content: embedded({ uri: resourceUri!, mimeType: "text/plain", text: "Embedded resource content for testing." }) },
      { role: "user", content: text("Please process the embedded resource above.") },
    ],
  }),
  definePrompt({
    name: "test_prompt_with_image",
    description: "A prompt that includes image content",
    get: () => [
      { role: "user", content: image(PNG, "image/png") },
      { role: "user", content: text("Please analyze the image above.") },
    ],
  }),
];

/**
 * Multi round-trip (SEP-2322) fixtures, written take-or-require: each
 * handler asks for what it lacks and runs again once the client answers.
 */
import { definePrompt, defineTool, elicit, type InputRequest, listRoots, sample, text } from "../../../src/mcp";
import { sampledText } from "./fixtures";

const askName = () => elicit("What is your name?", { name: { type: "string" } }, ["name"]);
const askConfirm = () => elicit("Please confirm", { ok: { type: "boolean" } }, ["ok"]);

export const mrtrTools = [
  defineTool({
    name: "test_input_required_result_elicitation",
    description: "MRTR: asks the user's name by elicitation, then greets them",
    handler: (_args, ctx) => {
      const { user_name } = ctx.input.ask({ user_name: askName() });
      if (user_name.action !== "accept") return `No name given (${user_name.action})`;
      return `Hello, ${String(user_name.content?.name ?? "stranger")}!`;
    },
  }),
  defineTool({
    name: "test_input_required_result_sampling",
    description: "MRTR: asks the client's model a question by sampling",
    handler: (_args, ctx) => {
      const { capital_question } = ctx.input.ask({
        capital_question: sample("What is the capital of France?", 100),
      });
      return `Sampling result: ${sampledText(capital_question)}`;
    },
  }),
  defineTool({
    name: "test_input_required_result_list_roots",
    description: "MRTR: asks the client for its roots",
    handler: (_args, ctx) => {
      const { client_roots } = ctx.input.ask({ client_roots: listRoots() });
      return `Found ${client_roots.roots.length} root(s)`;
    },
  }),
  defineTool({
    name: "test_input_required_result_request_state",
    description: "MRTR: carries its own state across rounds in requestState",
    handler: (_args, ctx) => {
      const { confirm } = ctx.input.ask({ confirm: askConfirm() }, { step: "confirm" });
      const state = ctx.input.state as { step?: string } | undefined;
      if (state?.step !== "confirm") throw new Error("requestState did not round-trip");
      return `state-ok: requestState validated (ok=${String(confirm.content?.ok)})`;
    },
  }),
  defineTool({
    name: "test_input_required_result_multiple_inputs",
    description: "MRTR: asks for an elicitation, a sampling and the roots in one round",
    handler: (_args, ctx) => {
      const answers = ctx.input.ask(
        {
          user_name: askName(),
          greeting: sample("Generate a greeting", 50),
          client_roots: listRoots(),
        },
        { round: 1 },
      );
      const name = answers.user_name.content?.name;
      const greeting = sampledText(answers.greeting);
      const roots = answers.client_roots.roots.length;
      return `Name: ${String(name)}; Greeting: ${greeting}; Roots: ${roots}`;
    },
  }),
  defineTool({
    name: "test_input_required_result_multi_round",
    description: "MRTR: asks two questions in two successive rounds",
    handler: (_args, ctx) => {
      const { step1 } = ctx.input.ask(
        { step1: elicit("Step 1: What is your name?", { name: { type: "string" } }, ["name"]) },
        { round: 1 },
      );
      const name = String(step1.content?.name ?? "someone");
      const { step2 } = ctx.input.ask(
        { step2: elicit("Step 2: What is your favorite color?", { color: { type: "string" } }, ["color"]) },
        { round: 2, name },
      );
      return `Multi-round complete for ${name} who likes ${String(step2.content?.color ?? "nothing")}`;
    },
  }),
  defineTool({
    name: "test_input_required_result_tampered_state",
    description: "MRTR: its requestState is signed, so a tampered one is rejected",
    handler: (_args, ctx) => {
      ctx.input.ask({ confirm: askConfirm() }, { signed: true });
      return "integrity-ok: state verified";
    },
  }),
  defineTool({
    name: "test_input_required_result_capabilities",
    description: "MRTR: asks only for what the client's capabilities allow",
    handler: (_args, ctx) => {
      const requests: Record<string, InputRequest> = {};
      if (ctx.clientCapabilities.sampling) requests.sample_input = sample("Sample request", 50);
      if (ctx.clientCapabilities.elicitation) requests.user_confirm = askConfirm();
      if (ctx.clientCapabilities.roots) requests.client_roots = listRoots();
      if (Object.keys(requests).length === 0) return "The client declared no input capability";
      const answers = ctx.input.ask(requests, { asked: Object.keys(requests) });
      return `Capabilities respected: answered ${Object.keys(answers).join(", ")}`;
    },
  }),
];

export const mrtrPrompt = definePrompt({
  name: "test_input_required_result_prompt",
  description: "MRTR: prompt that requires elicitation input",
  get: (_args, ctx) => {
    const { user_context } = ctx.input.ask({
      user_context: elicit("What context should the prompt use?", { context: { type: "string" } }, ["context"]),
    });
    return [{ role: "user", content: text(`Prompt with context: ${String(user_context.content?.context ?? "")}`) }];
  },
});

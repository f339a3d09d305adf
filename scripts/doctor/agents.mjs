// Why: hosted clients call a connector from their own servers with a documented User-Agent, and a zone's
// bot rules match on it. These are the agents their makers document for user-initiated fetches
// (Anthropic: Claude-User; OpenAI: ChatGPT-User; Perplexity: Perplexity-User; Mistral: MistralAI-User).
// The neutral agent is the doctor's own: a refusal it does not get is a refusal of the client.

export const NEUTRAL_AGENT = "mcp-worker-template-doctor/0.1";

export const HOSTED_AGENTS = [
  {
    name: "Claude-User",
    host: "Claude (claude.ai, Desktop, mobile connectors)",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)",
  },
  {
    name: "ChatGPT-User",
    host: "ChatGPT (connectors, apps)",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
  },
  {
    name: "Perplexity-User",
    host: "Perplexity",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)",
  },
  {
    name: "MistralAI-User",
    host: "Le Chat (Mistral)",
    ua: "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)",
  },
];

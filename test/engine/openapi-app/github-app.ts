/**
 * GitHub's REST API (the document @octokit/openapi ships, 1,223 operations) as tools, through
 * `fromOpenApi` and its compact form. The e2e step (test/engine/e2e/openapi-github.mjs) serves it
 * under `wrangler dev` against a local mock of the API. `githubTools` is exported alone so that
 * an app with another surface over the same tools (tool search, Code Mode) is one more file here.
 */
import { defineApp, fromOpenApi } from "../../../src/mcp";
import document from "./github-document.js";

export type GitHubEnv = { GITHUB_API_URL: string; GITHUB_TOKEN: string };

export const githubTools = fromOpenApi<GitHubEnv>(document, {
  name: "GitHub",
  baseUrl: (env) => env.GITHUB_API_URL,
  // The upstream's credential: sent to the API, never shown to the model.
  headers: (env) => ({
    Authorization: `Bearer ${env.GITHUB_TOKEN}`,
    "User-Agent": "mcp-openapi-fixture",
    "X-GitHub-Api-Version": "2022-11-28",
  }),
  timeoutMs: 10_000,
});

export default defineApp<GitHubEnv>({
  info: { name: "github-openapi", version: "1.0.0" },
  tools: githubTools,
});

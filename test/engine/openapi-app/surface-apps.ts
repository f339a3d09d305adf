/**
 * GitHub's 1,223 imported operations behind each small surface (docs/tools-at-scale.md): tool search
 * (search_tools + call_tool) and Code Mode (search_tools + execute in a Dynamic Worker). The e2e step
 * (test/engine/e2e/openapi-github.mjs) serves each under `wrangler dev` and drives it with the
 * official clients on both revisions, against the same local mock of the API as the flat listing.
 */
import { codeMode, defineApp, toolSearch } from "../../../src/mcp";
import { githubTools, type GitHubEnv } from "./github-app";

export const searchApp = defineApp<GitHubEnv>({
  info: { name: "github-tool-search", version: "1.0.0" },
  tools: githubTools,
  surface: toolSearch(),
});

export const codeApp = defineApp<GitHubEnv>({
  info: { name: "github-code-mode", version: "1.0.0" },
  tools: githubTools,
  surface: codeMode(),
});

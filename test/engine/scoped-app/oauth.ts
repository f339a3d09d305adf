/** The OAuth entry serving the scoped fixture app (wrangler.oauth.toml here; test/engine/e2e/oauth-browser.mjs steps up in it). */
import { createOAuthWorker } from "../../../src/engine/oauth/worker";
import app from "./app";

const worker = createOAuthWorker(app);
export const { McpHub, McpSession, McpTask, OAuthOnce } = worker;
export default { fetch: worker.fetch };

/**
 * Opt-in Worker entry (wrangler.oauth.toml, `npm run dev:oauth`): the example app with this
 * Worker as its own OAuth 2.1 authorization server (./worker.ts). The default entry (src/index.ts)
 * never imports this directory, so its bundle stays without it.
 */
import app from "../../server";
import type { OAuthEnv } from "./authorize";
import { createOAuthWorker } from "./worker";

// Options (docs/authorization.md, "The OAuth entry"): `userScopes` (which user may hold which scope),
// `consentScopes` (ticked on the consent page at first), `scopes` (grantable scopes no definition names).
const worker = createOAuthWorker(app);
export const { McpHub, McpSession, McpTask, OAuthOnce } = worker;
export default { fetch: worker.fetch } satisfies ExportedHandler<OAuthEnv>;

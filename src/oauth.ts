/**
 * The OAuth entry (wrangler.oauth.toml, `npm run dev:oauth`): your app in src/server.ts with this
 * Worker as its own OAuth 2.1 authorization server (docs/oauth-entry.md). This file is yours, like
 * src/index.ts: set the entry's options here. The default entry (src/index.ts) never imports it,
 * so its bundle stays without the OAuth provider.
 */
import app from "./server";
import { createOAuthWorker, type OAuthEnv } from "./engine/oauth";

// Options (docs/oauth-entry.md): `userScopes` (which user may hold which scope), `consentScopes`
// (ticked on the consent page at first), `scopes` (grantable scopes no definition names).
const worker = createOAuthWorker(app);
export const { McpHub, McpSession, McpTask, OAuthOnce } = worker;
export default { fetch: worker.fetch } satisfies ExportedHandler<OAuthEnv>;

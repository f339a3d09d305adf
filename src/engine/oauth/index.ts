/**
 * The OAuth entry's door: `createOAuthWorker(app, options)` makes the Worker that is its own OAuth
 * 2.1 authorization server for `app` (./worker.ts). A fork's entry file (src/oauth.ts) imports it;
 * nothing in the engine imports the fork's app.
 */
export { createOAuthWorker, type OAuthWorkerOptions } from "./worker";
export type { OAuthEnv } from "./authorize";

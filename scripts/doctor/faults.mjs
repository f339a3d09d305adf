// Why: every fault the doctor can find, in one place, each with what the hosted client shows the user,
// why it happens, and the fix by name (a wrangler.toml key, a wrangler command, or a Cloudflare dashboard
// setting), so the report, the --json output, docs/doctor.md and the tests all speak of the same faults.

const DEPLOY = "then `npm run deploy` (or `npm run deploy:oauth`)";
const ALLOW_AGENT_FIX = (agent) =>
  `Cloudflare dashboard → your domain → AI Crawl Control → Crawlers: set ${agent} to Allow; ` +
  `Security → Settings → Bot traffic: turn off "Block AI bots" (or limit it to hostnames with ads); ` +
  `Security → Security rules (WAF custom rules): add a Skip rule for URI Path starts with "/mcp" or "/.well-known/" ` +
  `ahead of the blocking rule. Security → Analytics → Events, filtered by the Ray ID, names the rule that matched.`;

export const FAULTS = {
  unreachable: (detail) => ({
    shows: `"Couldn't reach the MCP server" / "Error connecting to the MCP server"`,
    why: `nothing answered: ${detail}`,
    fix: "check the URL (it ends in /mcp), that the Worker is deployed (`npm run deploy`, `npx wrangler deployments list`) and that DNS for the host points at Cloudflare",
  }),
  insecureUrl: (url) => ({
    shows: "the connector refuses the URL or the sign-in (hosted clients require https)",
    why: `${url} is plain http on a host that is not loopback`,
    fix: "use the https:// URL; Cloudflare dashboard → SSL/TLS → Edge Certificates → Always Use HTTPS for the domain",
  }),
  redirect: (status, location) => ({
    shows: `"Error connecting to the MCP server" (a POST that is redirected loses its body or becomes a GET)`,
    why: `POST /mcp answered ${status} → ${location}`,
    fix: location?.includes("cloudflareaccess.com")
      ? "Cloudflare Access guards /mcp with a login page hosted clients cannot follow: Cloudflare dashboard → Zero Trust → Access → Applications: add a Bypass policy (or a separate application) for /mcp and /.well-known/*, and let the Worker's own OAuth (AUTH_MODE=jwt, or wrangler.oauth.toml) protect it"
      : `give the client the final URL (${location}), or remove the redirect: Cloudflare dashboard → Rules → Redirect Rules / Page Rules for this path (a trailing slash, http→https or a www rule)`,
  }),
  hostRefused: (host) => ({
    shows: `"Error connecting to the MCP server" (the Worker answers 403 to every request)`,
    why: `the Worker's Host allow-list does not include ${host} (custom domains are not allowed by default)`,
    fix: `wrangler.toml [vars] ALLOWED_HOSTS = "localhost,127.0.0.1,[::1],*.workers.dev,${host}" (wrangler.oauth.toml too for the OAuth entry), ${DEPLOY}`,
  }),
  originRefused: (origin) => ({
    shows: "browser-based clients (the MCP Inspector, web apps) fail with a CORS or 403 error",
    why: `the Worker refuses Origin ${origin}`,
    fix: `wrangler.toml [vars] ALLOWED_ORIGINS = "${origin}" (comma-separated), ${DEPLOY}`,
  }),
  edgeBlocksAgent: (agent, signature) => ({
    shows: `${agent.host}: the connector is added and signs in, then every tool fails ("Error connecting to the MCP server" / "Unable to load tools"); the Worker's logs show no request`,
    why: `Cloudflare's edge refuses the User-Agent ${agent.name} (${signature.summary}${signature.ray ? `, Ray ID ${signature.ray}` : ""}) and answers other agents: a zone bot or firewall rule (AI Crawl Control, Block AI bots, a WAF custom rule) treats the connector as an AI crawler`,
    fix: ALLOW_AGENT_FIX(agent.name),
  }),
  agentRefused: (agent, answer) => ({
    shows: `${agent.host}: "Error connecting to the MCP server"`,
    why: `the User-Agent ${agent.name} gets ${answer} where a neutral one does not, without the edge's signature: the Worker or something in front of it (a WAF rule, another proxy) filters on User-Agent`,
    fix: `look for a User-Agent rule: your Worker's code, Cloudflare dashboard → Security → Security rules, any proxy in front. ${ALLOW_AGENT_FIX(agent.name)}`,
  }),
  edgeBlocksAll: (signature) => ({
    shows: `"Error connecting to the MCP server" for every client`,
    why: `Cloudflare's edge answers instead of the Worker (${signature.summary}${signature.ray ? `, Ray ID ${signature.ray}` : ""}): a challenge no API client can solve`,
    fix: 'Cloudflare dashboard → Security → Settings: turn off Bot Fight Mode / "I\'m Under Attack" for this host, or add a Skip rule (Security rules) for URI Path starts with "/mcp" and "/.well-known/"; Zero Trust → Access: bypass /mcp',
  }),
  slow: (what, ms, budgetMs) => ({
    shows: `the connector times out ("Error connecting to the MCP server" / sign-in hangs then fails)`,
    why: `${what} took ${ms} ms; hosted clients give discovery, registration and token requests ${budgetMs} ms`,
    fix: "find the slow step with `npx wrangler tail` (a cold authorization server, a fetch to a slow upstream on this path, a JWKS fetched on every request); keep metadata static and cache what the path fetches",
  }),
  modernBroken: (answer) => ({
    shows: "clients that speak 2026-07-28 fail to connect (and those that probe it first may not fall back)",
    why: `2026-07-28 ${answer}`,
    fix: "see `npx wrangler tail` for the error; MCP_STATE_SECRET must be set (`npx wrangler secret put MCP_STATE_SECRET`)",
  }),
  legacyBroken: (answer) => ({
    shows: `Claude, ChatGPT and other 2025-11-25 clients: "Error connecting to the MCP server"`,
    why: `2025-11-25 ${answer}`,
    fix: "see `npx wrangler tail` for the error; check the Durable Object bindings and migrations in wrangler.toml were deployed (`npm run deploy`)",
  }),
  sessionLost: (answer, noId = false) => ({
    shows: `tools list and then fail with "Session not found" / the client re-initializes on every call`,
    why: noId
      ? `initialize was answered without Mcp-Session-Id, and the next request ${answer}: the server needs a session, and its id did not reach the client (a layer in front dropped the header, or the server did not send it)`
      : `a request with the session id that initialize returned ${answer}: the id did not reach the Worker intact, or it cannot open it`,
    fix: "set MCP_STATE_SECRET once (`npx wrangler secret put MCP_STATE_SECRET`) and do not change it between versions (rotate with MCP_STATE_SECRET_PREVIOUS); remove any Transform Rule or proxy that drops or rewrites the Mcp-Session-Id header (Cloudflare dashboard → Rules → Transform Rules)",
  }),
  sessionlessUnclear: (answer) => ({
    shows: `Claude (which may send no Mcp-Session-Id) gets an error it cannot act on`,
    why: `a 2025 request without Mcp-Session-Id ${answer}, not a JSON-RPC error (400) telling the client to initialize`,
    fix: "let the request reach the Worker (it answers 400 with a JSON-RPC error); see `npx wrangler tail`",
  }),
  rateLimited: (who, retryAfter, answer) => ({
    shows: `"Error connecting to the MCP server" / tools that fail now and then with "Too Many Requests"`,
    why: `${who} answered 429${retryAfter ? ` (Retry-After: ${retryAfter})` : ""}: ${answer}. The doctor's own requests count toward it too`,
    fix: "run the doctor again after Retry-After. If hosted clients meet it (many users reach you from one client's addresses), raise the limit: this template's wrangler.toml [[ratelimits]] MCP_RATE_LIMIT (every request) and MCP_SESSION_RATE_LIMIT (2025 sessions), or Cloudflare dashboard → Security → Security rules → Rate limiting rules for the edge's",
  }),
  notMcp: (answer) => ({
    shows: `"Error connecting to the MCP server" (the client gets a web page, not MCP)`,
    why: `POST /mcp answered ${answer}: something other than an MCP server answers this path (another Worker, a site, a catch-all route)`,
    fix: 'point the path at the Worker: wrangler.toml routes (`routes = [{ pattern = "<host>/mcp*", zone_name = "<zone>" }]` or a custom_domain), and check that no other Worker route, Pages project or origin rule matches /mcp first (Cloudflare dashboard → Workers Routes)',
  }),
  scopeRefused: (name, scope) => ({
    shows: `the tool ${name} fails until the user consents again: a hosted client that steps up (RFC 6750 insufficient_scope) asks the user to sign in again for ${scope ? `"${scope}"` : "more scope"}; one that does not shows an authorization error`,
    why: `tools/call ${name} answered 403 insufficient_scope${scope ? `, asking for scope "${scope}"` : ""}: the token given with --token lacks it`,
    fix: `run the doctor with a token that holds ${scope ? `"${scope}"` : "the tool's scopes"}; to have users grant it at first sign-in, include it in the scopes the server offers (docs/authorization.md)`,
  }),
  noChallenge: (answer) => ({
    shows: `Claude/ChatGPT: "Authorization failed" or never offer to sign in`,
    why: `the server refused without a usable challenge: ${answer}`,
    fix: 'answer 401 with `WWW-Authenticate: Bearer resource_metadata="https://<host>/.well-known/oauth-protected-resource/mcp"` (AUTH_MODE=jwt with AUTH_ISSUER, or the OAuth entry wrangler.oauth.toml)',
  }),
  staticTokenOnly: () => ({
    shows: "hosted connectors (Claude, ChatGPT) cannot sign in: they only do OAuth",
    why: "the 401 names no resource_metadata and no protected-resource metadata is served (AUTH_MODE=token)",
    fix: 'for hosted clients use OAuth: wrangler.toml [vars] AUTH_MODE = "jwt" with AUTH_ISSUER and AUTH_JWKS_URL, or deploy the OAuth entry (`npm run deploy:oauth`)',
  }),
  metadataMissing: (tried) => ({
    shows: `"Authorization failed" / "Couldn't find the authorization server"`,
    why: `no RFC 9728 protected-resource metadata at ${tried.join(" or ")}`,
    fix: "AUTH_MODE=jwt serves it at /.well-known/oauth-protected-resource/mcp (and the root form); so does the OAuth entry. Behind a route or proxy, make sure /.well-known/* reaches the Worker (wrangler.toml routes)",
  }),
  resourceMismatch: (named, expected) => ({
    shows: `"Authorization failed" (clients must refuse metadata for another resource)`,
    why: `the protected-resource metadata names "${named}", not this URL (${expected})`,
    fix: 'the metadata\'s resource must be the exact URL clients use: serve the Worker on that host directly (wrangler.toml routes = [{ pattern = "<host>", custom_domain = true }]) rather than through a proxy that rewrites Host; for a fixed name, set it in the resource metadata of your authorization setup',
  }),
  asMetadataMissing: (tried) => ({
    shows: `"Authorization failed"`,
    why: `no authorization server metadata (RFC 8414 or OpenID) at ${tried.join(", ")}`,
    fix: "check AUTH_ISSUER names the authorization server exactly (its issuer, with its path), and that the server publishes /.well-known/oauth-authorization-server or /.well-known/openid-configuration",
  }),
  noS256: (methods) => ({
    shows: `"Authorization failed" (MCP clients refuse an authorization server without PKCE S256)`,
    why: `code_challenge_methods_supported is ${JSON.stringify(methods)}`,
    fix: "enable PKCE with S256 on the authorization server (it must be listed in code_challenge_methods_supported)",
  }),
  noRegistration: () => ({
    shows: `Claude/ChatGPT: "This server does not support dynamic client registration" (unless a client id is entered by hand)`,
    why: "the authorization server offers neither a registration_endpoint nor client_id_metadata_document_supported",
    fix: "enable dynamic client registration or Client ID Metadata Documents on the authorization server (the OAuth entry has both: clientRegistrationEndpoint and clientIdMetadataDocumentEnabled in src/engine/oauth/worker.ts)",
  }),
  registrationFailed: (answer) => ({
    shows: `"Authorization failed" while adding the connector`,
    why: `dynamic client registration answered ${answer}`,
    fix: "the registration endpoint must accept a public client (token_endpoint_auth_method none) with an https redirect URI; see `npx wrangler tail`",
  }),
  tokenNeedsResource: (answer) => ({
    shows: `Claude Code and clients that drop resource on refresh: "Authorization failed" / a token that never works`,
    why: `the token endpoint refuses a request without RFC 8707 resource (${answer}) but not the same request with it`,
    fix: "OAuth entry: keep one resource per provider (src/engine/oauth/worker.ts) so a grant without resource gets it; AUTH_MODE=jwt: make https://<host>/mcp the authorization server's default audience, or list what it writes in AUTH_AUDIENCE",
  }),
  corsMissing: (what, none = false) => ({
    shows:
      "browser-based clients (the MCP Inspector in direct mode, web apps): a CORS error, or no session id to send back. Hosted connectors (Claude, ChatGPT) call from their servers and need no CORS",
    why: none ? `${what}: the server sends no CORS headers at all` : what,
    fix: none
      ? "this template's Worker answers CORS itself (src/engine/http/cors.ts) for the origins in ALLOWED_ORIGINS (wrangler.toml [vars]); if it does and none arrive, a layer in front removed them: Cloudflare dashboard → Rules → Transform Rules (response headers) or a Worker route answering OPTIONS. Another server: answer OPTIONS with Access-Control-Allow-Origin, -Methods (POST, GET, DELETE) and -Headers (every MCP header), and expose Mcp-Session-Id and WWW-Authenticate on answers"
      : "the Worker sets CORS (src/engine/http/cors.ts); a layer in front removed or replaced it: Cloudflare dashboard → Rules → Transform Rules (response headers) or a Worker route answering OPTIONS. For another origin, add it to ALLOWED_ORIGINS in wrangler.toml [vars]",
  }),
  viewUnreadable: (uri, answer) => ({
    shows: "MCP Apps hosts (Claude, ChatGPT) show the tool's text but no view",
    why: `the view ${uri} declared by a tool ${answer}`,
    fix: "check the view's file is in the Static Assets directory (wrangler.toml [assets] directory) and deployed (`npm run deploy`); its resource must be text/html;profile=mcp-app",
  }),
  outputCannotFit: (why) => ({
    shows:
      'Claude Code refuses the tool\'s result ("exceeds maximum allowed tokens"); claude.ai and other hosts cut it, and the model reads half a JSON document',
    why,
    fix: "lower the output schema's least (fewer required fields, smaller minItems and minLength), or return less and let the model ask for more; with resultBudget() the server cuts each result and links the whole, though its structured content never reaches the model whole (docs/results.md). `npm run check:app` names the same tools against the app's own budget",
  }),
  viewDomainWrong: (uri, why, fix) => ({
    shows: `Claude refuses the view ${uri} ("Invalid ui.domain format", or a domain for another server): the tool's text but no view`,
    why,
    fix,
  }),
  skillUnreadable: (uri, answer) => ({
    shows: "hosts that load skills cannot use this server's skill",
    why: `the skill ${uri} ${answer}`,
    fix: "rebuild and redeploy the skills (`node scripts/build-skills.mjs`, then `npm run deploy`) so each file matches its listed size and digest",
  }),
  quirkRefused: (quirk, answer) => ({
    shows: `${quirk.client} will fail every tool call: the connector shows "connected", then each request errors`,
    why: `${quirk.client} sends ${quirk.sends} (${quirk.threads.join(", ")}); this server refuses it ${answer}`,
    // What to change comes first, for any server; this template's own switch second.
    fix: `${quirk.accept}. This template does unless STRICT_HEADERS = "on": remove that from wrangler.toml [vars], ${DEPLOY}. docs/connect.md (Hosted clients' quirks) says what each shape means`,
  }),
  serverCardInvalid: (why) => ({
    shows: "clients and directories reject the Server Card, so discovery by domain does not find the server",
    why,
    fix: "this template builds the card from defineApp's info (docs/discovery.md): give info a version, a description of at most 100 characters, and discovery({ name }) a reverse-DNS name with one slash",
  }),
  serverCardDrift: (why) => ({
    shows: "a client that read the card finds another server when it connects, and trusts neither",
    why,
    fix: "serve the card from the running app (discovery() in defineApp) rather than a file kept by hand; a cache in front may hold an old card: purge it after a deploy",
  }),
  catalogWrong: (why) => ({
    shows: "clients that discover by domain read /.well-known/ai-catalog.json and do not reach this server's card",
    why,
    fix: "let discovery() serve the catalog (docs/discovery.md), or list the card's URL with type application/mcp-server-card+json in your own",
  }),
  directoryListing: (why) => ({
    shows: "a directory's reviewer (the MCP Registry, Claude's or ChatGPT's) refuses or flags the listing",
    why,
    fix: "in src/server.ts give info a title, a description (at most 100 characters), a websiteUrl and icons, and discovery({ name }) a namespace you can prove (docs/discovery.md); serve over https",
  }),
  callFailed: (name, answer) => ({
    shows: `the tool ${name} fails in the host`,
    why: answer,
    fix: "see the tool's error above and `npx wrangler tail`",
  }),
};

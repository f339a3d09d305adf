/**
 * The auth scenarios: the suite plays an MCP server that answers 401 and an
 * authorization server that "logs the user in" at once, redirecting to the
 * callback with a code. The user agent here follows that one redirect
 * without opening a browser.
 */
import {
  ClientCredentials,
  DPoPKey,
  McpClient,
  OAuthClient,
  idJagAssertion,
  type AuthProvider,
  type McpClientOptions,
} from "../../../src/engine/client";
import { conformanceHandlers } from "./handlers";

const REDIRECT_URI = "http://localhost:3000/callback";
/** The suite's stand-in for a client ID metadata document (never fetched by its authorization server). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

/** The user's browser: opens the authorization URL and reports where it was sent back to. */
async function userAgent(url: URL): Promise<string> {
  const res = await fetch(url, { redirect: "manual" });
  const location = res.headers.get("location");
  await res.body?.cancel();
  if (!location) throw new Error(`The authorization endpoint answered ${res.status} without a redirect`);
  return new URL(location, url).href;
}

/** A PKCS#8 PEM private key (the suite's ES256 client key) as a WebCrypto signing key. */
async function importEcKey(pem: string): Promise<CryptoKey> {
  const der = Uint8Array.from(atob(pem.replace(/-----[^-]+-----|\s/g, "")), (c) => c.charCodeAt(0));
  return crypto.subtle.importKey("pkcs8", der, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
}

interface Context {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  /** auth/wif-jwt-bearer: the workload's identity token. */
  valid_jwt?: string;
  /** auth/enterprise-managed-authorization: the user's ID token and where to exchange it. */
  idp_client_id?: string;
  idp_id_token?: string;
  idp_token_endpoint?: string;
}

/**
 * The suite's authorization server, read from the MCP server's protected resource metadata: a client
 * secret goes only to the authorization server configured for it, and here the suite is that server.
 */
async function suiteIssuer(url: string): Promise<string> {
  const u = new URL(url);
  for (const candidate of [
    `${u.origin}/.well-known/oauth-protected-resource${u.pathname.replace(/\/$/, "")}`,
    `${u.origin}/.well-known/oauth-protected-resource`,
  ]) {
    const res = await fetch(candidate);
    if (!res.ok) {
      await res.body?.cancel();
      continue;
    }
    const servers = ((await res.json()) as { authorization_servers?: string[] }).authorization_servers;
    if (servers?.[0]) return servers[0];
  }
  throw new Error(`the scenario's MCP server at ${url} publishes no authorization server`);
}

/** The machine-client scenarios, no user at a browser: client credentials (a secret or a signed JWT), a workload's JWT, an ID-JAG. */
async function clientCredentials(context: Context, url: string): Promise<AuthProvider> {
  if (!context.client_id) throw new Error("the scenario gave no client_id");
  if (context.valid_jwt) return new ClientCredentials({ clientId: context.client_id, assertion: () => context.valid_jwt! });
  if (context.idp_token_endpoint && context.idp_id_token && context.idp_client_id) {
    const assertion = idJagAssertion({
      tokenEndpoint: context.idp_token_endpoint,
      clientId: context.idp_client_id,
      idToken: () => context.idp_id_token!,
    });
    const secret = context.client_secret ? { clientSecret: context.client_secret, issuer: await suiteIssuer(url) } : {};
    return new ClientCredentials({ clientId: context.client_id, ...secret, assertion });
  }
  if (context.private_key_pem)
    return new ClientCredentials({ clientId: context.client_id, privateKey: await importEcKey(context.private_key_pem) });
  return new ClientCredentials({
    clientId: context.client_id,
    clientSecret: context.client_secret ?? "",
    ...(context.client_secret ? { issuer: await suiteIssuer(url) } : {}),
  });
}

export async function runAuthScenario(name: string, url: string, options: McpClientOptions): Promise<void> {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Context;
  const machine =
    name.startsWith("auth/client-credentials-") || name === "auth/wif-jwt-bearer" || name === "auth/enterprise-managed-authorization";
  const auth = machine ? await clientCredentials(context, url) : await userFlow(name, context, url);
  const client = await McpClient.connect(url, { ...options, auth, handlers: conformanceHandlers() });
  await client.listTools();
  await client.callTool("test-tool", {});
  await client.close();
}

async function userFlow(name: string, context: Context, url: string): Promise<AuthProvider> {
  const preRegistered = name === "auth/pre-registration" && context.client_id;
  return new OAuthClient({
    redirectUri: REDIRECT_URI,
    authorize: userAgent,
    clientName: "mcp-worker-template-conformance",
    clientMetadataUrl: CLIENT_METADATA_URL,
    ...(preRegistered
      ? {
          clientId: context.client_id,
          clientSecret: context.client_secret ?? "",
          ...(context.client_secret ? { issuer: await suiteIssuer(url) } : {}),
        }
      : {}),
    // The DPoP scenarios want tokens bound to a key of the client's.
    ...(name.startsWith("auth/dpop") ? { dpop: new DPoPKey() } : {}),
  });
}

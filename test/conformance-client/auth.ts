/**
 * The auth scenarios: the suite plays an MCP server that answers 401 and an
 * authorization server that "logs the user in" at once, redirecting to the
 * callback with a code. The user agent here follows that one redirect
 * without opening a browser.
 */
import { McpClient, OAuthClient, type McpClientOptions } from "../../src/client";
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

export async function runAuthScenario(name: string, url: string, options: McpClientOptions): Promise<void> {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as { client_id?: string; client_secret?: string };
  const auth = new OAuthClient({
    redirectUri: REDIRECT_URI,
    authorize: userAgent,
    clientName: "mcp-worker-template-conformance",
    clientMetadataUrl: CLIENT_METADATA_URL,
    ...(name === "auth/pre-registration" && context.client_id ? { clientId: context.client_id, clientSecret: context.client_secret ?? "" } : {}),
  });
  const client = await McpClient.connect(url, { ...options, auth, handlers: conformanceHandlers() });
  await client.listTools();
  await client.callTool("test-tool", {});
  await client.close();
}

/**
 * Enterprise-managed authorization: the user's identity provider, not the
 * MCP server's authorization server, decides. The client trades the user's
 * ID token at the identity provider (RFC 8693 token exchange) for an
 * identity assertion grant (ID-JAG) addressed to the authorization server
 * and the MCP server, then presents it there with the JWT-bearer grant
 * (`ClientCredentials` with this as its `assertion`).
 */
import * as oauth from "oauth4webapi";
import type { Fetch } from "../wire";
import { requestOptions } from "./requests";

export interface IdJagOptions {
  /** The identity provider's token endpoint. */
  tokenEndpoint: string;
  /** This client at the identity provider. */
  clientId: string;
  clientSecret?: string;
  /** The user's ID token from the identity provider (asked for each exchange, so it can be refreshed). */
  idToken: () => Promise<string> | string;
  fetch?: Fetch;
  allowHttp?: boolean;
}

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";

/** An `assertion` for `ClientCredentials`: a fresh ID-JAG for the authorization server and resource at hand. */
export function idJagAssertion(o: IdJagOptions): (at: { issuer: string; resource: string }) => Promise<string> {
  return async ({ issuer, resource }) => {
    const idp: oauth.AuthorizationServer = { issuer: new URL(o.tokenEndpoint).origin, token_endpoint: o.tokenEndpoint };
    const client: oauth.Client = { client_id: o.clientId };
    const auth = o.clientSecret ? oauth.ClientSecretPost(o.clientSecret) : oauth.None();
    const params = {
      subject_token: await o.idToken(),
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: issuer,
      resource,
    };
    const fetchFn = o.fetch ?? ((input, init) => fetch(input, init));
    const res = await oauth.genericTokenEndpointRequest(
      idp,
      client,
      auth,
      TOKEN_EXCHANGE,
      params,
      requestOptions(fetchFn, o.tokenEndpoint, o.allowHttp),
    );
    // An ID-JAG is not an access token: its token_type is "N_A" (RFC 8693).
    const t = await oauth.processGenericTokenEndpointResponse(idp, client, res, { recognizedTokenTypes: { n_a: () => {} } });
    return t.access_token;
  };
}

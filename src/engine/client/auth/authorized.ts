/**
 * The loop every token-based auth provider runs around the MCP server's
 * fetch: send the request with the token held; on a 401 (or a 403
 * `insufficient_scope`) obtain a token the provider's way and send it once
 * more. One new token per request, so a server that keeps refusing ends the
 * loop.
 */
import { McpClientError } from "../errors";
import type { Fetch } from "../wire";
import { bearerChallenge, type BearerChallenge } from "./challenge";

/** How a token is presented: as a bearer token unless the provider binds it to a key (DPoP). */
export type Present = (token: string, next: Fetch, input: string | URL | Request, init: RequestInit | undefined) => Promise<Response>;

const bearer: Present = (token, next, input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("Authorization", `Bearer ${token}`);
  return next(input, { ...init, headers });
};

export function authorizedFetch(
  next: Fetch,
  resource: string,
  token: () => Promise<string | undefined>,
  obtain: (status: number, challenge: BearerChallenge) => Promise<void>,
  present: Present = bearer,
): Fetch {
  return async (input, init) => {
    const send = async () => {
      const held = await token();
      return held ? present(held, next, input, init) : next(input, init);
    };
    const res = await send();
    if (res.status !== 401 && res.status !== 403) return res;
    const challenge = bearerChallenge(res) ?? {};
    if (res.status === 403 && challenge.error !== "insufficient_scope") return res;
    await res.body?.cancel();
    try {
      await obtain(res.status, challenge);
    } catch (err) {
      if (err instanceof McpClientError) throw err;
      throw new McpClientError(`Authorization for ${resource} failed: ${(err as Error)?.message ?? err}`, undefined, res.status);
    }
    return send();
  };
}

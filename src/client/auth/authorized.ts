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

export function authorizedFetch(
  next: Fetch,
  resource: string,
  token: () => Promise<string | undefined>,
  obtain: (status: number, challenge: BearerChallenge) => Promise<void>,
): Fetch {
  return async (input, init) => {
    const send = async () => {
      const held = await token();
      const headers = new Headers(init?.headers);
      if (held) headers.set("Authorization", `Bearer ${held}`);
      return next(input, { ...init, headers });
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

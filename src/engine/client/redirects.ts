/**
 * Redirects, followed by the client itself: a 307 or 308 replays the request
 * as it was, body and headers included (the app's `X-Api-Key`, a token), so
 * the client follows one only within the origin it was sent to. A redirect to
 * another origin is an error that names it; an app that means to go there
 * connects to that URL itself.
 */
import { McpClientError } from "./errors";
import type { Fetch } from "./wire";

/** Redirects in a row followed within one origin before the client gives up. */
const MAX_REDIRECTS = 5;

export function sameOriginOnly(next: Fetch): Fetch {
  return async (input, init) => {
    let url = input instanceof Request ? input.url : String(input);
    for (let hops = 0; ; hops++) {
      const res = await next(input instanceof Request && hops === 0 ? input : url, { ...init, redirect: "manual" });
      if ((res.type as string) === "opaqueredirect")
        throw new McpClientError(
          `${url} answered with a redirect the client cannot see (a browser's fetch); connect to the final URL`,
          undefined,
          res.status,
        );
      const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
      if (location === null) return res;
      await res.body?.cancel();
      const target = new URL(location, url);
      if (target.origin !== new URL(url).origin) {
        throw new McpClientError(
          `${url} redirected to another origin (${target.origin}); the client does not send the request, its body and its headers there`,
          undefined,
          res.status,
        );
      }
      if (hops >= MAX_REDIRECTS) throw new McpClientError(`${url} redirected more than ${MAX_REDIRECTS} times`, undefined, res.status);
      url = target.href;
    }
  };
}

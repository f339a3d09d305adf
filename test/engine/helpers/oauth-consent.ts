/**
 * A user at the OAuth entry's real consent page (src/engine/oauth/authorize.ts), without a browser:
 * open the authorization URL, read the form (its handle and the scope boxes, as ticked), tick what
 * the user chooses, submit with the page's binding cookie, and follow the redirect back to the
 * client. The demo sign-in (OAUTH_DEMO_AUTO_APPROVE, a loopback CF-Connecting-IP) is the user.
 */

/** Sends one request to the entry (the test's own fetch into the Worker). */
export type EntryFetch = (request: Request) => Promise<Response>;

export interface ConsentPage {
  status: number;
  html: string;
  /** The scope boxes on the page: value → ticked. */
  boxes: Map<string, boolean>;
  /** Submits the form with `scopes` ticked (default: as the page ticked them), or denies; returns the redirect back. */
  submit(choice?: { scopes?: string[]; deny?: boolean; forge?: string[] }): Promise<URL>;
}

const unescape = (s: string) => s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));

/** Opens `url` (an /authorize URL; prompt=consent is added so the demo shows the page). */
export async function openConsent(send: EntryFetch, url: string | URL): Promise<ConsentPage> {
  const u = new URL(url);
  u.searchParams.set("prompt", "consent");
  const res = await send(new Request(u, { headers: { "CF-Connecting-IP": "127.0.0.1" }, redirect: "manual" }));
  const html = await res.text();
  const boxes = new Map<string, boolean>();
  for (const m of html.matchAll(/<input type="checkbox" name="scope" value="([^"]*)"( checked)?>/g))
    boxes.set(unescape(m[1]!), m[2] !== undefined);
  const handle = unescape(/name="handle" value="([^"]*)"/.exec(html)?.[1] ?? "");
  // The binding cookie(s) the page set, sent back with the form.
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return {
    status: res.status,
    html,
    boxes,
    async submit(choice = {}) {
      const form = new URLSearchParams({ handle, decision: choice.deny ? "deny" : "approve" });
      const ticked = choice.scopes ?? [...boxes].filter(([, on]) => on).map(([s]) => s);
      for (const s of [...ticked, ...(choice.forge ?? [])]) form.append("scope", s);
      const back = await send(
        new Request(new URL("/authorize", u), {
          method: "POST",
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            Cookie: cookie,
            "CF-Connecting-IP": "127.0.0.1",
            Origin: u.origin,
          },
          body: form,
          redirect: "manual",
        }),
      );
      const location = back.headers.get("Location");
      if (!location) throw new Error(`The consent form answered ${back.status} without a redirect: ${await back.text()}`);
      return new URL(location);
    },
  };
}

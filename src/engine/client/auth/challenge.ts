/**
 * Reads a `WWW-Authenticate: Bearer …` challenge: where the protected
 * resource metadata lives, which scope the server wants and why it refused
 * (`invalid_token` or `insufficient_scope`).
 */
export interface BearerChallenge {
  resourceMetadata?: string;
  scope?: string;
  error?: string;
}

export function bearerChallenge(res: Response): BearerChallenge | undefined {
  const header = res.headers.get("www-authenticate");
  if (!header) return undefined;
  const at = header.search(/(^|[\s,])Bearer(\s|$)/i);
  if (at < 0) return undefined;
  const params = parseParams(header.slice(at).replace(/^[\s,]*Bearer\s*/i, ""));
  return {
    ...(params.resource_metadata ? { resourceMetadata: params.resource_metadata } : {}),
    ...(params.scope ? { scope: params.scope } : {}),
    ...(params.error ? { error: params.error } : {}),
  };
}

/** `key=value` and `key="quoted, value"` pairs until the next scheme starts. */
function parseParams(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /\s*([A-Za-z0-9_!#$%&'*+.^`|~-]+)\s*=\s*("((?:[^"\\]|\\.)*)"|[^\s,]*)\s*,?/y;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const key = m[1]!.toLowerCase();
    if (!(key in out)) out[key] = m[3] !== undefined ? m[3].replace(/\\(.)/g, "$1") : m[2]!;
  }
  return out;
}

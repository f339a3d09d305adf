/**
 * Files the extensions serve (skill files, view HTML) come from Workers Static Assets through a
 * binding, never from the Worker's bundle: they cost nothing at start-up and do not count against
 * the bundle's size. Served only through /mcp, each read checked against what the build recorded.
 */
import { ErrorCode, McpError } from "../errors";
import type { ResourceContents } from "../types";

/** What the build recorded of a file: its size and `sha256:<hex>` digest, and its mime type. */
export interface AssetFile {
  size: number;
  digest: string;
  mimeType: string;
}

const failure = (message: string) => new McpError(ErrorCode.InternalError, message);

/** The bytes of one asset, by its path under the assets directory (`/skills/x/SKILL.md`). */
export async function fetchAsset(env: unknown, binding: string, path: string): Promise<Uint8Array> {
  const assets = (env as Record<string, { fetch?: unknown } | undefined> | undefined)?.[binding];
  if (typeof assets?.fetch !== "function")
    throw failure(`The ${binding} binding is missing: add [assets] with binding = "${binding}" to wrangler.toml`);
  // The host is never contacted: an assets binding answers from the deployed files by path.
  const res = (await (assets as Fetcher).fetch(new Request(new URL(path, "https://assets.invalid")))) as Response;
  if (!res.ok) throw failure(`${path} is not among the deployed assets (HTTP ${res.status})`);
  return new Uint8Array(await res.arrayBuffer());
}

async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `sha256:${Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/**
 * A recorded file read back as resource contents. Bytes that differ from the record (a file edited
 * after the build, without building again) are refused, never served under a digest they do not have.
 */
export async function readRecorded(env: unknown, binding: string, path: string, uri: string, file: AssetFile): Promise<ResourceContents> {
  const bytes = await fetchAsset(env, binding, path);
  if (bytes.byteLength !== file.size || (await sha256Digest(bytes)) !== file.digest)
    throw failure(
      `${uri} changed since the build recorded it; write the manifest again (\`node scripts/build-skills.mjs\`, the [build] command in wrangler.toml) and deploy`,
    );
  let text: string | undefined;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  if (text !== undefined) return { uri, mimeType: file.mimeType, text };
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return { uri, mimeType: file.mimeType, blob: btoa(binary) };
}

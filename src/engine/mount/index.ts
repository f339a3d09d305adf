/**
 * `mountServer` (docs/mount.md): another MCP server's tools, prompts and resources served as this
 * server's own, under a prefix. The upstream is reached with the dual-era client (src/engine/client/), whose
 * fallback picks the revision it speaks; downstream, they are served on both revisions like the app's,
 * through this server's authorization, policy, rate limits, spans and log lines. An app without mounts
 * imports none of this folder, and so carries no client.
 */
import type { Mount } from "../mcp/mounts";
import { servedBy } from "../mcp/registry";
import { MOUNT_METHODS } from "./methods";
import { PREFIX, type MountOptions } from "./options";
import { MountedServer } from "./server";

export type { MountOptions };

export function mountServer<Env = any>(options: MountOptions<Env>): Mount {
  const { prefix } = options;
  if (!PREFIX.test(prefix))
    throw new Error(
      `mountServer: prefix "${prefix}" must be a letter then up to 31 letters, digits, "-" or "." (no "_": names stay unambiguous; it starts mounted URIs' schemes)`,
    );
  return servedBy<Mount>(new MountedServer(options), { tables: [MOUNT_METHODS] });
}

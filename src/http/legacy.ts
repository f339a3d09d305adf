/**
 * The 2025-11-25 lane: session traffic forwarded to the session Durable
 * Object. Until sessions are enabled, legacy traffic gets an error that names
 * the revisions this server speaks, so a dual-era client can fall forward.
 */
import type { Message } from "../mcp/jsonrpc";
import { ErrorCode } from "../mcp/errors";
import { SUPPORTED_VERSIONS, MODERN_VERSION } from "../mcp/versions";
import { rpcError } from "./responses";

export function serveLegacy(msg: Message): Response {
  const id = msg.kind === "request" ? msg.message.id : null;
  return rpcError(
    id,
    {
      code: ErrorCode.UnsupportedProtocolVersion,
      message: `This server serves protocol ${MODERN_VERSION} without sessions; send MCP-Protocol-Version: ${MODERN_VERSION} and the per-request _meta`,
      data: { supported: [MODERN_VERSION], requested: "2025-11-25" },
    },
    400,
  );
}

export { SUPPORTED_VERSIONS };

/** The Worker entry of the scoped fixture app: three opaque tokens of one user, with more scopes each. */
import { AuthFailure, createMcpWorker, type TokenVerifier } from "../../../src/mcp";
import app from "./app";

const TOKENS: Record<string, string[]> = { reader: ["notes:read"], writer: ["notes:write"], admin: ["notes:admin"] };

const verifyToken: TokenVerifier = async (token) => {
  const scopes = Object.hasOwn(TOKENS, token) ? TOKENS[token] : undefined;
  if (!scopes) throw new AuthFailure("invalid_token", "Unknown token");
  return { id: "alice", scopes, claims: { email: "alice@example.test", secret: "never shown" } };
};

const worker = createMcpWorker(app, { verifyToken, authorizationServers: ["https://as.example.test"] });
export const { McpHub, McpSession, McpTask } = worker;
export default worker;

/**
 * The MCP client an app imports on its own (`./client`), so a server that
 * does not call other servers does not carry it. It uses `fetch` and web
 * APIs only: it runs in a Worker, a Durable Object and Node 22.
 */
export { McpClient, DEFAULT_CLIENT_INFO, type AuthProvider, type McpClientOptions } from "./client";
export { McpClientError } from "./errors";
export { DEFAULT_LIMITS, type ClientLimits } from "./limits";
export type { Protocol } from "./era";
export { forgetEra } from "./era";
export type { InputHandlers, ElicitResult, RootsResult, SamplingResult } from "./handlers";
export type { CallOptions, LogMessage, Progress, TaskOptions } from "./lane";
export { TaskClient, type Task, type TaskPage, type TaskStatus } from "./task-client";
export { Subscription, type ListenFilter, type ServerNotification } from "./listen";
export { MemoryCache, type ResultCache } from "./cache";
export { encodeHeaderValue } from "./headers";
export type * from "./types";
export type { Fetch } from "./wire";
export { OAuthClient, type OAuthClientOptions } from "./auth/oauth";
export { ClientCredentials, type ClientCredentialsOptions } from "./auth/client-credentials";
export { idJagAssertion, type IdJagOptions } from "./auth/id-jag";
export { DPoPKey } from "./auth/dpop";
export { MemoryTokenStore, type StoredClient, type StoredTokens, type TokenStore } from "./auth/store";

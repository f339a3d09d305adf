/**
 * The RPC surface of a principal's object (object.ts), which the store (index.ts) calls: the user
 * feature's contract, kept beside it as src/engine/objects/contracts.ts keeps the engine's own.
 */
/** What a write answers: nothing, or the bound it would have passed. */
export type WriteAnswer = { over?: number; error?: string; rows?: Record<string, unknown>[] };

/** What the Worker calls on a principal's object (per-user state, object.ts). */
export interface UserMethods {
  get(key: string): Promise<string | null>;
  put(key: string, json: string): Promise<WriteAnswer>;
  delete(key: string): Promise<boolean>;
  list(prefix: string, after: string, limit: number): Promise<{ key: string; value: string }[]>;
  sql(query: string, bindings: unknown[]): Promise<WriteAnswer>;
  /** Erases everything the object holds. */
  erase(): Promise<void>;
}

export interface UserRpc extends UserMethods, Rpc.DurableObjectBranded {}

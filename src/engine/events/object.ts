/**
 * McpEvents: the one Durable Object class of MCP Events (bound as MCP_EVENTS), in two roles by name
 * (placement.ts). A type's own object keeps its log and serves emit, poll and the shards' reads
 * (type-log.ts); a shard keeps a share of its webhook subscriptions and delivers to them (shard.ts).
 * It is a module-level class: `events(...)` registers the types it serves at start-up (registry.ts).
 * Each object keeps its name and role on first use, for its alarm.
 */
import { readConfig } from "../config";
import type { Env } from "../env";
import { McpError, messageOf, toMcpError } from "../mcp/errors";
import { inSpan } from "../mcp/tracing";
import { DurableObject } from "../objects/durable-object";
import { tracerFor } from "../reporting";
import { eventError } from "./errors";
import { SHARD_CHECK_MS } from "./limits";
import { LogStore } from "./log-store";
import { servedType, type ServedType } from "./registry";
import { Shard } from "./shard";
import { ShardStore } from "./shard-store";
import type { Answer, EmitRequest, EventsRpc, JoinRequest, PollRequest, SubscribeRequest } from "./contracts";
import { TypeLog } from "./type-log";

/**
 * An RPC's outcome as data (an error's class does not cross the RPC boundary). `forApp`: the caller is
 * the app's own code (emit), which is told what was wrong; a client is told only what an McpError says.
 */
const answer = async <T>(work: () => Promise<T> | T, forApp = false): Promise<Answer<T>> => {
  try {
    return { result: await work() };
  } catch (err) {
    return { error: forApp && !(err instanceof McpError) ? { code: -32603, message: messageOf(err) } : toMcpError(err).toJSON() };
  }
};

/** Who this object is: the type's name, and its shard index (absent for the type's own object). */
interface Identity {
  name: string;
  shard?: number;
}

function typeNamed(name: string): ServedType {
  const type = servedType(name);
  if (!type) throw eventError("NotFound", `No event type "${name}"`, { kind: "event" });
  return type;
}

export class McpEvents extends DurableObject<Env> implements EventsRpc {
  private identity?: Identity;
  private typeLog?: TypeLog;
  private shardRole?: Shard;
  /** The pass in progress: a second alarm run (a test's, or the runtime's retry) waits for it, so no two passes send the same occurrence. */
  private passing: Promise<void> = Promise.resolve();

  /** Kept on the first call (one write in the object's life), read back by the alarm. */
  private async known(id?: Identity): Promise<Identity | undefined> {
    if (this.identity) return this.identity;
    const stored = await this.ctx.storage.get<Identity>("identity");
    if (stored) return (this.identity = stored);
    if (id) await this.ctx.storage.put("identity", id);
    return (this.identity = id);
  }

  private async log(name: string): Promise<TypeLog> {
    await this.known({ name });
    return (this.typeLog ??= new TypeLog(this.ctx, this.env, new LogStore(this.ctx.storage.sql)));
  }

  private async shard(name: string, k: number): Promise<Shard> {
    await this.known({ name, shard: k });
    return (this.shardRole ??= new Shard(this.ctx, this.env, new ShardStore(this.ctx.storage.sql), name));
  }

  // The type's own object.
  async emit(name: string, req: EmitRequest): Promise<Answer<{ eventId: string; shards: number }>> {
    return answer(
      () =>
        inSpan(tracerFor(readConfig(this.env)), `events/emit ${name}`, async (span) => {
          const type = typeNamed(name);
          const out = await (await this.log(name)).emit(type, req);
          span?.setAttributes({ "mcp.event.name": name, "mcp.event.shards": out.shards });
          return out;
        }),
      true,
    );
  }

  async poll(name: string, req: PollRequest): Promise<Answer<Record<string, unknown>>> {
    return answer(async () => (await this.log(name)).poll(typeNamed(name), req));
  }

  async join(name: string, k: number, req: JoinRequest) {
    return answer(async () => (await this.log(name)).join(typeNamed(name), k, req));
  }

  async read(name: string, from: number, limit: number) {
    return answer(async () => (await this.log(name)).read(from, limit));
  }

  // A shard.
  async subscribe(name: string, k: number, req: SubscribeRequest, verify: boolean): Promise<Answer<Record<string, unknown>>> {
    return answer(async () => (await this.shard(name, k)).subscribe(typeNamed(name), k, req, verify));
  }

  async unsubscribe(name: string, k: number, id: string): Promise<Answer<{ found: boolean }>> {
    return answer(async () => {
      typeNamed(name);
      return { found: (await this.shard(name, k)).store.drop(id) };
    });
  }

  async wake(name: string, k: number): Promise<void> {
    await (await this.shard(name, k)).wake();
  }

  async alarm(): Promise<void> {
    const id = await this.known();
    if (!id) return;
    const type = servedType(id.name);
    if (id.shard === undefined) {
      if (type) await (await this.log(id.name)).wakeShards(type);
      return;
    }
    const shard = await this.shard(id.name, id.shard);
    const run = this.passing.then(async () => {
      if (!type) return shard.typeRemoved();
      const next = await shard.pass(type);
      // A shard with subscriptions looks in now and then even when nothing is sent (expiry, a type a deploy removed).
      const at = next ?? (shard.store.hasLive(Date.now()) ? Date.now() + SHARD_CHECK_MS : undefined);
      if (at !== undefined) await shard.wake(at);
    });
    this.passing = run.catch(() => undefined);
    await run;
  }
}

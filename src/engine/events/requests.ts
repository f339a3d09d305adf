/**
 * What every events/* request checks before it reaches an object: the type it names (and the mode it
 * uses), the subscription arguments (validated, bounded, in canonical JSON for the key), the caller's
 * access (the type's scopes, the app's `allow`), its principal, and a webhook delivery's fields.
 */
import * as v from "valibot";
import type { HandlerContext } from "../mcp/context";
import { invalidParams } from "../mcp/errors";
import { isObject } from "../mcp/guards";
import { canonicalJson } from "./canonical";
import type { CompiledEvent, DeliveryMode } from "./define";
import { eventError } from "./errors";
import { callbackRefusal, secretKey } from "./webhook";

/** The largest subscription arguments, in UTF-8 bytes of canonical JSON. */
const MAX_ARGUMENT_BYTES = 4096;

export type Types = () => Map<string, CompiledEvent>;

/**
 * A subscription's arguments as the type's schema parsed them (defaults filled in), and that value in
 * canonical JSON: what `allow` sees is what is stored, keyed and matched, everywhere.
 */
export interface Arguments {
  parsed: Record<string, unknown>;
  canonical: string;
}

export function typeNamed(types: Types, params: Record<string, unknown>, mode?: DeliveryMode): CompiledEvent {
  if (typeof params.name !== "string") throw invalidParams("params.name must be the event type's name");
  const type = types().get(params.name);
  if (!type) throw eventError("NotFound", `No event type "${params.name}"`, { kind: "event" });
  if (mode && !type.modes.has(mode))
    throw eventError("Unsupported", `${params.name} is not delivered by ${mode}`, { feature: "deliveryMode", value: mode });
  return type;
}

export const scopesOf = (ctx: HandlerContext<any>) => ctx.auth?.scopes ?? [];

/** The arguments, validated against the type's input schema; in canonical JSON for the key. */
export function argumentsOf(type: CompiledEvent, params: Record<string, unknown>): Arguments {
  const args = params.arguments ?? {};
  if (!isObject(args)) throw invalidParams("params.arguments must be an object");
  // Stored with every subscription and compared at every emit: bounded like the URL and the secret.
  if (new TextEncoder().encode(canonicalJson(args)).byteLength > MAX_ARGUMENT_BYTES)
    throw invalidParams(`params.arguments must stay under ${MAX_ARGUMENT_BYTES} bytes of JSON`);
  if (!type.def.input) return { parsed: args, canonical: canonicalJson(args) };
  const parsed = v.safeParse(type.def.input, args);
  if (!parsed.success) throw invalidParams(`Invalid arguments for ${type.def.name}: ${parsed.issues.map((i) => i.message).join("; ")}`);
  const output = parsed.output as Record<string, unknown>;
  return { parsed: output, canonical: canonicalJson(output) };
}

/**
 * The type's own `allow` check. Its `scopes` were checked before the method ran, by the one
 * authorization (the `guard` events() declares, with `implies` and the app's policy).
 */
export async function checkAccess(type: CompiledEvent, parsed: Record<string, unknown>, ctx: HandlerContext<any>): Promise<void> {
  if (
    type.def.allow &&
    !(await type.def.allow({ principal: ctx.auth?.principal ?? "", scopes: scopesOf(ctx), arguments: parsed, env: ctx.env }))
  )
    throw eventError("Forbidden", `This caller may not subscribe to ${type.def.name} with these arguments`);
}

export function principalOf(ctx: HandlerContext<any>, what: string): string {
  const principal = ctx.auth?.principal;
  // Webhooks outlive the request: only an authenticated principal can own one.
  if (!principal) throw eventError("Forbidden", `${what} needs an authenticated caller`);
  return principal;
}

export function optionalMs(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    throw invalidParams(`params.${name} must be a non-negative number of milliseconds`);
  return value;
}

export function webhookOf(params: Record<string, unknown>, ctx: HandlerContext<any>, needSecret: boolean): { url: string; secret: string } {
  const delivery = params.delivery;
  if (!isObject(delivery)) throw invalidParams("params.delivery must be an object with mode, url and secret");
  if (delivery.mode !== undefined && delivery.mode !== "webhook")
    throw eventError("Unsupported", `events/subscribe takes webhook delivery; use events/poll for polling`, {
      feature: "deliveryMode",
      value: delivery.mode,
    });
  if (needSecret && delivery.mode !== "webhook") throw invalidParams('params.delivery.mode must be "webhook"');
  const refused = callbackRefusal(delivery.url, ctx.env?.MCP_DEV === "on");
  if (refused) throw invalidParams(refused);
  if (needSecret && !secretKey(delivery.secret))
    throw invalidParams("params.delivery.secret must be whsec_ followed by the base64 of 24 to 64 random bytes");
  return { url: new URL(delivery.url as string).href, secret: delivery.secret as string };
}

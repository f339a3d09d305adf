/**
 * Input, state and versions under attack: answers the server never asked for, requestState that is
 * too large, replayed with other arguments or spelled another way, version headers and lists that
 * disagree with what the path accepts, capabilities a request needs and the client lacks, and
 * progress tokens that would be echoed at any size.
 *
 * Most tests drive the engine test app through /mcp; the ones that need a tool it does not have
 * (multi-round, arguments worth binding, sampling with context) serve a small app of their own
 * through `createMcpWorker` on the stateless lane.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { execute } from "../../../src/engine/mcp/execute";
import { compileApp } from "../../../src/engine/mcp/registry";
import { LEGACY } from "../../../src/engine/mcp/revisions";
import { createMcpWorker, defineApp, definePrompt, defineResourceTemplate, defineTool, elicit, sample, text } from "../../../src/mcp";
import { MCP_URL, META, VERSION, buildModernRequest, expectRpcError, modernPost, modernResult, type RpcMessage } from "../helpers/mcp";
import { LEGACY_VERSION, call, cancelAllReaders, deleteSession, getStream, openSession, postInitialize, request } from "../helpers/legacy";

afterEach(cancelAllReaders);

const InvalidRequest = -32600;
const InvalidParams = -32602;
const InternalError = -32603;
const MissingCapability = -32021;
const UnsupportedVersion = -32022;
const ELICIT = { elicitation: {} };
const greet = { name: "greet", arguments: {} };
const ADA = { who: { action: "accept", content: { name: "Ada" } } };

/** Round 1 of greet: its requestState. */
async function greetState(): Promise<string> {
  const r = await modernResult("tools/call", greet, { capabilities: ELICIT });
  expect(r.resultType).toBe("input_required");
  return r.requestState;
}

/** POSTs a modern request whose JSON text is edited before sending (for keys a JS object literal cannot hold). */
function postEdited(
  method: string,
  params: Record<string, unknown>,
  edit: (json: string) => string,
  capabilities: Record<string, unknown> = ELICIT,
) {
  const { message } = buildModernRequest(method, params, { capabilities });
  return modernPost(method, params, { capabilities, rawBody: edit(JSON.stringify(message)) });
}

// ── a small app with the tools the engine test app does not have ───────────

const big = (n: number) => "x".repeat(n);

const attackApp = defineApp({
  info: { name: "attack-app", version: "0.0.0" },
  tools: [
    defineTool({
      name: "two_rounds",
      description: "Asks for `first`, then for `second`, then answers with both.",
      input: v.object({}),
      handler: (_args, ctx) => {
        const { first } = ctx.input.ask({ first: elicit("First?", { v: { type: "string" } }) });
        const { second } = ctx.input.ask({ second: elicit("Second?", { v: { type: "string" } }) });
        return `${String(first.content?.v).length}+${String(second.content?.v).length}`;
      },
    }),
    defineTool({
      name: "peek",
      description: "Reads its answer with take, as hand-written handlers do.",
      input: v.object({}),
      handler: (_args, ctx) => {
        const who = ctx.input.take("who");
        if (who === undefined) ctx.input.require({ who: elicit("Name?", { name: { type: "string" } }) });
        return `action ${JSON.stringify(who!.action)}`;
      },
    }),
    defineTool({
      name: "heavy_state",
      description: "Keeps a large state of its own between rounds.",
      input: v.object({ size: v.number() }),
      handler: ({ size }, ctx) => {
        if (ctx.input.take("ok") === undefined) ctx.input.require({ ok: elicit("OK?", {}) }, big(size));
        return "done";
      },
    }),
    defineTool({
      name: "transfer",
      description: "Moves money after the user confirms.",
      input: v.object({ amount: v.number(), to: v.string() }),
      handler: ({ amount, to }, ctx) => {
        const { ok } = ctx.input.ask({ ok: elicit(`Send ${amount} to ${to}?`, {}) });
        return ok.action === "accept" ? `sent ${amount} to ${to}` : "cancelled";
      },
    }),
    defineTool({
      name: "sample_with_context",
      description: "Samples with context from this server.",
      input: v.object({}),
      handler: (_args, ctx) => {
        const { s } = ctx.input.ask({ s: sample("Summarise", 10, { includeContext: "thisServer" }) });
        return String(s.model);
      },
    }),
  ],
  prompts: [
    definePrompt({
      name: "confirm_prompt",
      description: "Asks before building the prompt.",
      arguments: [{ name: "topic", required: true }],
      get: ({ topic }, ctx) => {
        ctx.input.ask({ ok: elicit("Go?", {}) });
        return [{ role: "user", content: text(`About ${topic}`) }];
      },
    }),
  ],
  resourceTemplates: [
    defineResourceTemplate({
      uriTemplate: "vault://{name}",
      name: "vault",
      read: ({ name }, _uri, ctx) => {
        ctx.input.ask({ ok: elicit("Open?", {}) });
        return `secret ${name}`;
      },
    }),
  ],
});
const attackWorker = createMcpWorker(attackApp);

/** One modern request to the attack app; returns the JSON-RPC answer and the HTTP status. */
async function attackCall(
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = ELICIT,
  edit = (json: string) => json,
) {
  const { message, headers } = buildModernRequest(method, params, { capabilities });
  const ctx = createExecutionContext();
  const res = await attackWorker.fetch(
    new Request(MCP_URL, { method: "POST", headers, body: edit(JSON.stringify(message)) }),
    env as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const body = (await res.json()) as RpcMessage;
  return { status: res.status, body };
}

// ── 3: only answers to requests the server made count ──────────────────────

describe("answers the server never asked for", () => {
  it("unsolicited inputResponses on a first call are ignored", async () => {
    const r = await modernResult(
      "tools/call",
      { ...greet, inputResponses: { who: { action: "accept", content: { name: "Mallory" } } } },
      { capabilities: ELICIT },
    );
    // The server asked nothing yet: it asks now, instead of running the handler with the client's answer.
    expect(r.resultType).toBe("input_required");
    expect(Object.keys(r.inputRequests)).toEqual(["who"]);
  });

  it("a malformed answer (action: 12345) without a requestState never reaches the handler", async () => {
    const r = await modernResult("tools/call", { ...greet, inputResponses: { who: { action: 12345 } } }, { capabilities: ELICIT });
    expect(r.resultType).toBe("input_required");
  });

  it("an answer smuggled under __proto__ next to a valid requestState is ignored", async () => {
    const state = (await attackCall("tools/call", { name: "peek", arguments: {} })).body.result.requestState;
    // JSON text can carry an own "__proto__" key; a JS object literal cannot, so the key is renamed in the text.
    const toProto = (j: string) => j.replace('"PROTO"', '"__proto__"');
    const smuggled = await attackCall(
      "tools/call",
      { name: "peek", arguments: {}, requestState: state, inputResponses: { PROTO: { who: { action: 12345 } } } },
      ELICIT,
      toProto,
    );
    expect(smuggled.status).toBe(200);
    expect(JSON.stringify(smuggled.body)).not.toContain("action 12345");
    expect(smuggled.body.result?.resultType, JSON.stringify(smuggled.body)).toBe("input_required");
    // Through `ask` (greet) too, and the honest answer still completes with the same state.
    const requestState = await greetState();
    const res = await postEdited(
      "tools/call",
      { ...greet, requestState, inputResponses: { PROTO: { who: { action: "accept", content: { name: "Smuggled" } } } } },
      toProto,
    );
    expect(((await res.json()) as RpcMessage).result?.resultType).toBe("input_required");
    expect(await modernResult("tools/call", { ...greet, requestState, inputResponses: ADA }, { capabilities: ELICIT })).toMatchObject({
      content: [{ text: "Hello, Ada!" }],
    });
    const honest = await attackCall("tools/call", {
      name: "peek",
      arguments: {},
      requestState: state,
      inputResponses: { who: { action: "decline" } },
    });
    expect(honest.body.result?.content[0].text).toBe('action "decline"');
  });

  it("every counted answer is shape-checked (form content values)", async () => {
    const requestState = await greetState();
    const res = await modernPost(
      "tools/call",
      { ...greet, requestState, inputResponses: { who: { action: "accept", content: { name: { nested: true } } } } },
      { capabilities: ELICIT, id: "shape" },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as RpcMessage;
    expect(body.error?.code, JSON.stringify(body)).toBe(InvalidParams);
    expect(body.error?.message).toMatch(/inputResponses\.who/);
  });
});

// ── 5: the version header on session traffic must be the negotiated one ────

describe("a 2025 session keeps its negotiated version", () => {
  it("a 2025 session refuses an MCP-Protocol-Version other than the negotiated one with 400", async () => {
    const s = await openSession({ capabilities: ELICIT });
    const other = { "MCP-Protocol-Version": "2025-06-18" };
    await expectRpcError(await request(s.id, "ping", {}, { id: "v1", headers: other }), 400, InvalidRequest);
    await expectRpcError(await getStream(s.id, undefined, other), 400, InvalidRequest);
    await expectRpcError(await deleteSession(s.id, other), 400, InvalidRequest);
    // Absent means the negotiated one; the negotiated one works; the session is still there.
    expect((await call(s.id, "ping", {}, { headers: { "MCP-Protocol-Version": null } })).result).toEqual({});
    expect((await call(s.id, "ping")).result).toEqual({});
  });

  it("a session negotiated at 2025-06-18 refuses an older revision, serves a newer one (hosted clients send it) and accepts its own", async () => {
    const init = await postInitialize({ protocolVersion: "2025-06-18", capabilities: {} });
    expect(init.status).toBe(200);
    const sid = init.headers.get("Mcp-Session-Id")!;
    expect(((await init.json()) as RpcMessage).result.protocolVersion).toBe("2025-06-18");
    await expectRpcError(await request(sid, "ping", {}, { headers: { "MCP-Protocol-Version": "2025-03-26" } }), 400, InvalidRequest);
    // STRICT_HEADERS=on refuses the newer one too (hosted-quirks.test.ts).
    expect((await call(sid, "ping", {}, { headers: { "MCP-Protocol-Version": "2025-11-25" } })).result).toEqual({});
    expect((await call(sid, "ping", {}, { headers: { "MCP-Protocol-Version": "2025-06-18" } })).result).toEqual({});
  });
});

// ── 6: the versions listed are the versions the path accepts ───────────────

describe("the versions -32022 lists", () => {
  it("every version -32022 lists is accepted when the client retries with it, and discover and initialize agree", async () => {
    const res = await modernPost(
      "tools/list",
      {},
      { meta: { [META.protocolVersion]: "2099-01-01" }, headers: { "MCP-Protocol-Version": "2099-01-01" } },
    );
    const error = await expectRpcError(res, 400, UnsupportedVersion);
    const supported = error.data.supported as string[];
    expect(supported).toContain(VERSION);
    for (const version of supported) {
      const retry = await modernPost(
        "tools/list",
        {},
        { meta: { [META.protocolVersion]: version }, headers: { "MCP-Protocol-Version": version } },
      );
      const body = (await retry.json()) as RpcMessage;
      expect(retry.status, `${version}: ${JSON.stringify(body)}`).toBe(200);
      expect(body.error).toBeUndefined();
    }
    // The same list for a legacy revision named per request, and from server/discover.
    const legacy = await expectRpcError(
      await modernPost(
        "tools/list",
        {},
        { meta: { [META.protocolVersion]: LEGACY_VERSION }, headers: { "MCP-Protocol-Version": LEGACY_VERSION } },
      ),
      400,
      UnsupportedVersion,
    );
    expect(legacy.data.supported).toEqual(supported);
    expect((await modernResult("server/discover")).supportedVersions).toEqual(supported);
    // initialize negotiates only session revisions: asked for one of those lists, it offers its own.
    for (const version of supported) {
      const init = await postInitialize({ protocolVersion: version, capabilities: {} });
      const negotiated = ((await init.json()) as RpcMessage).result.protocolVersion;
      expect(supported).not.toContain(negotiated);
      expect(negotiated).toBe(LEGACY_VERSION);
    }
  });
});

// ── 8 and 9: capabilities a request needs, per revision ────────────────────

describe("capabilities a request needs", () => {
  it("sampling with includeContext other than none needs sampling.context (2026: 400 -32021)", async () => {
    const without = await attackCall("tools/call", { name: "sample_with_context", arguments: {} }, { sampling: {} });
    expect(without.status).toBe(400);
    expect(without.body.error?.code).toBe(MissingCapability);
    expect(without.body.error?.data).toEqual({ requiredCapabilities: { sampling: { context: {} } } });
    const withContext = await attackCall("tools/call", { name: "sample_with_context", arguments: {} }, { sampling: { context: {} } });
    expect(withContext.status).toBe(200);
    expect(withContext.body.result.resultType).toBe("input_required");
    expect(withContext.body.result.inputRequests.s.params.includeContext).toBe("thisServer");
  });

  it("on a 2025 session the same request fails with -32600 naming sampling.context", async () => {
    // The session object runs calls through this executor and encodes errors as its revision does.
    const outcome = await execute(
      "tools/call",
      { name: "sample_with_context", arguments: {} },
      {
        revision: LEGACY,
        reg: compileApp(attackApp),
        protocolVersion: LEGACY_VERSION,
        clientCapabilities: { sampling: {} },
        answers: {},
        state: undefined,
        signal: new AbortController().signal,
        emit: () => {},
        notify: {
          toolsListChanged: async () => {},
          promptsListChanged: async () => {},
          resourcesListChanged: async () => {},
          resourceUpdated: async () => {},
        },
        env: {},
      },
    );
    if (outcome.kind !== "error") throw new Error(`expected an error, got ${outcome.kind}`);
    const error = LEGACY.encodeError(outcome.error);
    expect(error.code).toBe(InvalidRequest);
    expect(error.data).toEqual({ requiredCapabilities: { sampling: { context: {} } } });
  });

  it("a 2025 session gets -32600 (not the 2026-only -32021) for a capability the client did not declare", async () => {
    const s = await openSession({ capabilities: {} });
    const body = await call(s.id, "tools/call", greet, { id: "no-cap" });
    expect(body.id).toBe("no-cap");
    expect(body.error?.code, JSON.stringify(body)).toBe(InvalidRequest);
    expect(body.error?.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });
});

// ── 11: progress tokens are bounded like request ids ───────────────────────

describe("progress token length", () => {
  it("a progressToken over 256 characters is refused on both lanes (400 -32602); 256 is served", async () => {
    const long = big(10_000);
    const modern = await modernPost(
      "tools/call",
      { name: "countdown", arguments: { from: 1 } },
      { id: "pt", meta: { progressToken: long } },
    );
    const error = await expectRpcError(modern, 400, InvalidParams, "pt");
    expect(error.message).toMatch(/progressToken/);
    const ok = await modernPost(
      "tools/call",
      { name: "convert_temperature", arguments: { value: 0, from: "celsius" } },
      { meta: { progressToken: big(256) } },
    );
    expect(ok.status).toBe(200);

    const s = await openSession({ capabilities: ELICIT });
    const legacy = await request(
      s.id,
      "tools/call",
      { name: "countdown", arguments: { from: 1 }, _meta: { progressToken: long } },
      { id: "lpt" },
    );
    expect((await expectRpcError(legacy, 400, InvalidParams, "lpt")).message).toMatch(/progressToken/);
    const legacyOk = await call(s.id, "tools/call", {
      name: "convert_temperature",
      arguments: { value: 0, from: "celsius" },
      _meta: { progressToken: big(256) },
    });
    expect(legacyOk.error).toBeUndefined();
  });
});

// ── 16: a state the server would refuse is never issued ────────────────────

describe("requestState size", () => {
  it("answers that would make requestState too large are refused when sealing (-32602), not on the next round", async () => {
    const round1 = await attackCall("tools/call", { name: "two_rounds", arguments: {} });
    const state1 = round1.body.result.requestState;
    // A 70 KB answer is fine in one body, but carried in the next round's state it is over the limit.
    const round2 = await attackCall("tools/call", {
      name: "two_rounds",
      arguments: {},
      requestState: state1,
      inputResponses: { first: { action: "accept", content: { v: big(70_000) } } },
    });
    expect(round2.status).toBe(200);
    expect(round2.body.result, JSON.stringify(round2.body).slice(0, 300)).toBeUndefined();
    expect(round2.body.error?.code).toBe(InvalidParams);
    expect(round2.body.error?.message).toMatch(/too large/);
    // Smaller answers still go through both rounds.
    const ok2 = await attackCall("tools/call", {
      name: "two_rounds",
      arguments: {},
      requestState: state1,
      inputResponses: { first: { action: "accept", content: { v: big(1000) } } },
    });
    const ok3 = await attackCall("tools/call", {
      name: "two_rounds",
      arguments: {},
      requestState: ok2.body.result.requestState,
      inputResponses: { second: { action: "accept", content: { v: "y" } } },
    });
    expect(ok3.body.result.content[0].text).toBe("1000+1");
  });

  it("a handler state too large to seal is a server error (-32603), and 20,000 unsolicited keys do not grow the state", async () => {
    const heavy = await attackCall("tools/call", { name: "heavy_state", arguments: { size: 70_000 } });
    expect(heavy.body.error?.code).toBe(InternalError);
    expect(heavy.body.error?.message).toMatch(/too large/);
    expect((await attackCall("tools/call", { name: "heavy_state", arguments: { size: 100 } })).body.result.resultType).toBe(
      "input_required",
    );

    const unsolicited = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, { action: "accept", content: { v: "x" } }]));
    const r = await modernResult("tools/call", { ...greet, inputResponses: unsolicited }, { capabilities: ELICIT });
    expect(r.resultType).toBe("input_required");
    expect(r.requestState.length).toBeLessThan(2048);
  });
});

// ── 17: requestState is bound to the arguments, and has one spelling ───────

describe("requestState bound to its request", () => {
  it("a requestState only opens for the arguments (or URI) it was issued for", async () => {
    const tool = await attackCall("tools/call", { name: "transfer", arguments: { amount: 1, to: "bob" } });
    const toolState = tool.body.result.requestState;
    const yes = { ok: { action: "accept" } };
    const replay = await attackCall("tools/call", {
      name: "transfer",
      arguments: { amount: 1000, to: "mallory" },
      requestState: toolState,
      inputResponses: yes,
    });
    expect(replay.body.error?.code, JSON.stringify(replay.body)).toBe(InvalidParams);
    expect(replay.body.error?.message).toMatch(/requestState/);
    // The same arguments in another key order are the same arguments.
    const honest = await attackCall("tools/call", {
      name: "transfer",
      arguments: { to: "bob", amount: 1 },
      requestState: toolState,
      inputResponses: yes,
    });
    expect(honest.body.result?.content[0].text).toBe("sent 1 to bob");

    const prompt = await attackCall("prompts/get", { name: "confirm_prompt", arguments: { topic: "cats" } });
    const other = await attackCall("prompts/get", {
      name: "confirm_prompt",
      arguments: { topic: "dogs" },
      requestState: prompt.body.result.requestState,
      inputResponses: yes,
    });
    expect(other.body.error?.code).toBe(InvalidParams);
    const same = await attackCall("prompts/get", {
      name: "confirm_prompt",
      arguments: { topic: "cats" },
      requestState: prompt.body.result.requestState,
      inputResponses: yes,
    });
    expect(same.body.result?.messages[0].content.text).toBe("About cats");

    // resources/read: the URI is the target, so another URI is refused as well.
    const read = await attackCall("resources/read", { uri: "vault://a" });
    const otherUri = await attackCall("resources/read", {
      uri: "vault://b",
      requestState: read.body.result.requestState,
      inputResponses: yes,
    });
    expect(otherUri.body.error?.code).toBe(InvalidParams);
  });

  it("only the canonical base64url spelling of a requestState is accepted", async () => {
    const state = await greetState();
    const [payload, kid, mac] = state.split(".") as [string, string, string];
    const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    // The MAC is 32 bytes in 43 characters: the last one carries 2 bits nobody reads. Flipping one
    // decodes to the same bytes, so only a canonical-spelling check can tell.
    const last = ALPHABET.indexOf(mac.at(-1)!);
    const strayBits = `${payload}.${kid}.${mac.slice(0, -1)}${ALPHABET[last ^ 1]}`;
    const variants = [
      `${payload.slice(0, 10)} ${payload.slice(10)}.${kid}.${mac}`,
      `${payload}.${kid}.${mac.slice(0, 20)}\n${mac.slice(20)}`,
      `${payload}.${kid}.${mac}=`,
      strayBits,
      state.replace(/-/g, "+").replace(/_/g, "/"),
    ].filter((s) => s !== state);
    expect(variants.length).toBeGreaterThanOrEqual(4);
    for (const variant of variants) {
      const res = await modernPost(
        "tools/call",
        { ...greet, requestState: variant, inputResponses: ADA },
        { capabilities: ELICIT, id: "enc" },
      );
      const body = (await res.json()) as RpcMessage;
      expect(body.error?.code, `${JSON.stringify(variant)} → ${JSON.stringify(body)}`).toBe(InvalidParams);
    }
    expect(
      await modernResult("tools/call", { ...greet, requestState: state, inputResponses: ADA }, { capabilities: ELICIT }),
    ).toMatchObject({ content: [{ text: "Hello, Ada!" }] });
  });
});

/**
 * Multi round-trip requests (the 2026-07-28 multi round-trip pattern) through the greet tool:
 * InputRequiredResult, the retry with inputResponses + requestState, and
 * everything a client (or attacker) can get wrong in between.
 */
import { describe, expect, it } from "vitest";
import { META, expectRpcError, modernCall, modernPost, modernResult } from "../helpers/mcp";

const InvalidParams = -32602;
const MissingCapability = -32021;
const ELICIT = { elicitation: {} };
const greet = { name: "greet", arguments: {} };

/** Round 1: returns the InputRequiredResult. */
async function round1(capabilities: Record<string, unknown> = ELICIT) {
  const result = await modernResult("tools/call", greet, { capabilities });
  expect(result.resultType).toBe("input_required");
  return result as { inputRequests: Record<string, any>; requestState: string; resultType: string; _meta?: any };
}

/** Flips one character in the signed payload of a requestState. */
function tamper(state: string): string {
  const [payload, kid, mac] = state.split(".");
  const i = Math.floor(payload!.length / 2);
  const flipped = payload![i] === "A" ? "B" : "A";
  return `${payload!.slice(0, i)}${flipped}${payload!.slice(i + 1)}.${kid}.${mac}`;
}

describe("round 1", () => {
  it("2026-07-28: greet asks for the name with an input_required result holding an elicitation and a requestState", async () => {
    const result = await round1();
    expect(Object.keys(result.inputRequests)).toEqual(["who"]);
    const who = result.inputRequests.who;
    expect(who.method).toBe("elicitation/create");
    // A bare { method, params }: no jsonrpc, no id.
    expect(who.jsonrpc).toBeUndefined();
    expect(who.id).toBeUndefined();
    expect(who.params.message).toBe("What is your name?");
    expect(who.params.requestedSchema).toEqual({
      type: "object",
      properties: { name: { type: "string", title: "Your name" } },
      required: ["name"],
    });
    expect(typeof result.requestState).toBe("string");
    expect(result.requestState.length).toBeGreaterThan(0);
    expect(result._meta?.[META.serverInfo]?.name).toBe("engine-test-app");
    // InputRequiredResult is never cacheable and is not a tool result.
    expect((result as any).ttlMs).toBeUndefined();
    expect((result as any).cacheScope).toBeUndefined();
    expect((result as any).content).toBeUndefined();
  });

  it("2026-07-28: an input_required result is HTTP 200 plain JSON echoing the request id", async () => {
    const res = await modernPost("tools/call", greet, { id: "mrtr-1", capabilities: ELICIT });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    const body = (await res.json()) as any;
    expect(body.id).toBe("mrtr-1");
    expect(body.result.resultType).toBe("input_required");
  });

  it("2026-07-28: a client declaring only url elicitation cannot answer a form: 400 -32021 naming elicitation.form", async () => {
    const res = await modernPost("tools/call", greet, { id: "mrtr-url", capabilities: { elicitation: { url: {} } } });
    const error = await expectRpcError(res, 400, MissingCapability, "mrtr-url");
    expect(error.data.requiredCapabilities).toEqual({ elicitation: { form: {} } });
  });

  it("2026-07-28: a client declaring elicitation.form gets the form", async () => {
    const result = await round1({ elicitation: { form: {} } });
    expect(result.inputRequests.who.method).toBe("elicitation/create");
  });

  it("2026-07-28: a client without the elicitation capability gets 400 -32021 with requiredCapabilities {elicitation:{}}", async () => {
    const res = await modernPost("tools/call", greet, { id: 201, capabilities: {} });
    const error = await expectRpcError(res, 400, MissingCapability, 201);
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });

  it("2026-07-28: the capability is judged per request, never remembered from an earlier one", async () => {
    await round1(ELICIT);
    const res = await modernPost("tools/call", greet, { capabilities: {} });
    await expectRpcError(res, 400, MissingCapability);
  });
});

describe("round 2", () => {
  it("2026-07-28: retrying with inputResponses and the echoed requestState completes with the greeting", async () => {
    const { requestState } = await round1();
    const res = await modernPost(
      "tools/call",
      { ...greet, inputResponses: { who: { action: "accept", content: { name: "Ada" } } }, requestState },
      { id: "mrtr-2", capabilities: ELICIT },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.id).toBe("mrtr-2");
    expect(body.result.resultType).toBe("complete");
    expect(body.result.content).toEqual([{ type: "text", text: "Hello, Ada!" }]);
    expect(body.result.isError).toBeUndefined();
  });

  it("2026-07-28: a declined elicitation completes without a name", async () => {
    const { requestState } = await round1();
    const result = await modernResult(
      "tools/call",
      { ...greet, inputResponses: { who: { action: "decline" } }, requestState },
      { capabilities: ELICIT },
    );
    expect(result.content[0].text).toBe("No name given; hello anyway!");
  });

  it("2026-07-28: a requestState can be used by a retry even when its id differs from round 1's", async () => {
    const r1 = await modernPost("tools/call", greet, { id: 1001, capabilities: ELICIT });
    const { result } = (await r1.json()) as any;
    const r2 = await modernCall(
      "tools/call",
      { ...greet, inputResponses: { who: { action: "accept", content: { name: "Grace" } } }, requestState: result.requestState },
      { id: 1002, capabilities: ELICIT },
    );
    expect(r2.id).toBe(1002);
    expect(r2.result.content[0].text).toBe("Hello, Grace!");
  });

  it("2026-07-28: a retry with requestState but no inputResponses asks again (a new input_required, not an error)", async () => {
    const { requestState } = await round1();
    const result = await modernResult("tools/call", { ...greet, requestState }, { capabilities: ELICIT });
    expect(result.resultType).toBe("input_required");
    expect(Object.keys(result.inputRequests)).toEqual(["who"]);
  });

  it("2026-07-28: inputResponses keys the server did not ask for are ignored", async () => {
    const { requestState } = await round1();
    const result = await modernResult(
      "tools/call",
      { ...greet, inputResponses: { who: { action: "accept", content: { name: "Lin" } }, extra: "garbage" }, requestState },
      { capabilities: ELICIT },
    );
    expect(result.content[0].text).toBe("Hello, Lin!");
  });
});

describe("requestState integrity and malformed answers", () => {
  it("2026-07-28: a tampered requestState is rejected with -32602", async () => {
    const { requestState } = await round1();
    const body = await modernCall(
      "tools/call",
      { ...greet, inputResponses: { who: { action: "accept", content: { name: "Eve" } } }, requestState: tamper(requestState) },
      { id: 211, capabilities: ELICIT },
    );
    expect(body.id).toBe(211);
    expect(body.result).toBeUndefined();
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2026-07-28: a requestState that is not a server-issued token is rejected with -32602", async () => {
    for (const requestState of ["", "abc", "a.b.c", 42, { forged: true }]) {
      const body = await modernCall("tools/call", { ...greet, requestState }, { capabilities: ELICIT });
      expect(body.error?.code, JSON.stringify(requestState)).toBe(InvalidParams);
    }
  });

  it("2026-07-28: a requestState issued for greet is rejected with -32602 on another tool", async () => {
    const { requestState } = await round1();
    const body = await modernCall("tools/call", { name: "roll_dice", arguments: {}, requestState }, { id: 212, capabilities: ELICIT });
    expect(body.id).toBe(212);
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2026-07-28: a requestState issued for tools/call is rejected with -32602 on prompts/get", async () => {
    const { requestState } = await round1();
    const body = await modernCall(
      "prompts/get",
      { name: "explain_unit", arguments: { unit: "kelvin" }, requestState },
      { capabilities: ELICIT },
    );
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2026-07-28: inputResponses that is not an object is rejected with -32602", async () => {
    const { requestState } = await round1();
    const body = await modernCall("tools/call", { ...greet, inputResponses: ["Ada"], requestState }, { id: 213, capabilities: ELICIT });
    expect(body.id).toBe(213);
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2026-07-28: an elicitation answer with an invalid action is rejected with -32602", async () => {
    const { requestState } = await round1();
    const body = await modernCall(
      "tools/call",
      { ...greet, inputResponses: { who: { action: "maybe", content: { name: "Ada" } } }, requestState },
      { capabilities: ELICIT },
    );
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2026-07-28: an elicitation answer whose content is not an object is rejected with -32602", async () => {
    const { requestState } = await round1();
    const body = await modernCall(
      "tools/call",
      { ...greet, inputResponses: { who: { action: "accept", content: "Ada" } }, requestState },
      { capabilities: ELICIT },
    );
    expect(body.error?.code).toBe(InvalidParams);
  });

  it("2026-07-28: an elicitation answer that is not an object is rejected with -32602", async () => {
    const { requestState } = await round1();
    const body = await modernCall("tools/call", { ...greet, inputResponses: { who: "Ada" }, requestState }, { capabilities: ELICIT });
    expect(body.error?.code).toBe(InvalidParams);
  });
});

/**
 * The 2026-07-28 HTTP validation ladder (the revision's Streamable HTTP transport, error codes and versioning):
 * every rung answers with its mandated HTTP status and JSON-RPC code, and
 * echoes the request id.
 */
import { describe, expect, it } from "vitest";
import { META, VERSION, base64Header, expectRpcError, modernPost, modernResult } from "../helpers/mcp";

const HeaderMismatch = -32020;
const MissingCapability = -32021;
const UnsupportedVersion = -32022;
const InvalidParams = -32602;
const MethodNotFound = -32601;

describe("MCP-Protocol-Version header", () => {
  it("2026-07-28: a request without MCP-Protocol-Version is rejected with 400 -32020", async () => {
    const res = await modernPost("tools/list", {}, { id: 11, headers: { "MCP-Protocol-Version": null } });
    await expectRpcError(res, 400, HeaderMismatch, 11);
  });

  it("2026-07-28: an MCP-Protocol-Version naming another known revision is served as _meta says (hosted clients send it)", async () => {
    // STRICT_HEADERS=on refuses it with 400 -32020: test/engine/integration/hosted-quirks.test.ts.
    const res = await modernPost("tools/list", {}, { id: 12, headers: { "MCP-Protocol-Version": "2025-11-25" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
  });

  it("2026-07-28: a header naming a future revision while _meta says 2026-07-28 is a mismatch, not an unsupported version", async () => {
    const res = await modernPost("tools/list", {}, { id: 13, headers: { "MCP-Protocol-Version": "2099-01-01" } });
    await expectRpcError(res, 400, HeaderMismatch, 13);
  });

  it("2026-07-28: header names are case-insensitive (mcp-protocol-version in lower case is accepted)", async () => {
    const res = await modernPost("tools/list", {}, { headers: { "MCP-Protocol-Version": null, "mcp-protocol-version": VERSION } });
    expect(res.status).toBe(200);
  });
});

describe("_meta envelope", () => {
  it("2026-07-28: a request with the version header but no params._meta is rejected with 400 -32602", async () => {
    const res = await modernPost("tools/list", {}, { id: 21, meta: null });
    await expectRpcError(res, 400, InvalidParams, 21);
  });

  it("2026-07-28: a request without params at all (but with the version header) is rejected with 400 -32602", async () => {
    const res = await modernPost(
      "tools/list",
      {},
      {
        id: 22,
        rawBody: JSON.stringify({ jsonrpc: "2.0", id: 22, method: "tools/list" }),
      },
    );
    await expectRpcError(res, 400, InvalidParams, 22);
  });

  it("2026-07-28: _meta without protocolVersion is rejected with 400 -32602", async () => {
    const res = await modernPost("tools/list", {}, { id: 23, meta: { [META.protocolVersion]: null } });
    await expectRpcError(res, 400, InvalidParams, 23);
  });

  it("2026-07-28: _meta without clientCapabilities is rejected with 400 -32602", async () => {
    const res = await modernPost("tools/list", {}, { id: 24, meta: { [META.clientCapabilities]: null } });
    await expectRpcError(res, 400, InvalidParams, 24);
  });

  it("2026-07-28: clientCapabilities that is not an object is rejected with 400 -32602", async () => {
    const res = await modernPost("tools/list", {}, { id: 25, meta: { [META.clientCapabilities]: "all" } });
    await expectRpcError(res, 400, InvalidParams, 25);
  });

  it("2026-07-28: a request without clientInfo is served (clientInfo is optional)", async () => {
    const result = await modernResult("tools/list", {}, { meta: { [META.clientInfo]: null } });
    expect(result.resultType).toBe("complete");
  });

  it("2026-07-28: an invalid logLevel is rejected with 400 -32602", async () => {
    const res = await modernPost("tools/list", {}, { id: 26, meta: { [META.logLevel]: "verbose" } });
    await expectRpcError(res, 400, InvalidParams, 26);
  });

  it("2026-07-28: a progressToken that is neither string nor integer is rejected with 400 -32602", async () => {
    const res = await modernPost("tools/list", {}, { id: 27, meta: { progressToken: { nested: true } } });
    await expectRpcError(res, 400, InvalidParams, 27);
  });
});

describe("protocol version negotiation", () => {
  it("2026-07-28: an unsupported version is rejected with 400 -32022 naming supported and requested", async () => {
    const res = await modernPost(
      "tools/list",
      {},
      {
        id: 31,
        meta: { [META.protocolVersion]: "2099-01-01" },
        headers: { "MCP-Protocol-Version": "2099-01-01" },
      },
    );
    const error = await expectRpcError(res, 400, UnsupportedVersion, 31);
    expect(error.data.requested).toBe("2099-01-01");
    expect(error.data.supported).toContain(VERSION);
    expect(error.data.supported).not.toContain("2099-01-01");
  });

  it("2026-07-28: a legacy revision in the per-request _meta (no session) gets -32022 whose supported list excludes it", async () => {
    // Otherwise a client that retries with a mutual version would loop on the same error.
    const res = await modernPost(
      "tools/list",
      {},
      {
        id: 32,
        meta: { [META.protocolVersion]: "2025-11-25" },
        headers: { "MCP-Protocol-Version": "2025-11-25" },
      },
    );
    const error = await expectRpcError(res, 400, UnsupportedVersion, 32);
    expect(error.data.requested).toBe("2025-11-25");
    expect(error.data.supported).toContain(VERSION);
    expect(error.data.supported).not.toContain("2025-11-25");
  });

  it("2026-07-28: -32022 lists the same versions server/discover advertises", async () => {
    const discover = await modernResult("server/discover");
    const res = await modernPost(
      "tools/list",
      {},
      {
        meta: { [META.protocolVersion]: "2024-01-01" },
        headers: { "MCP-Protocol-Version": "2024-01-01" },
      },
    );
    const error = await expectRpcError(res, 400, UnsupportedVersion);
    expect(error.data.supported).toEqual(discover.supportedVersions);
  });
});

describe("Mcp-Method header", () => {
  it("2026-07-28: a request without Mcp-Method is rejected with 400 -32020", async () => {
    const res = await modernPost("tools/list", {}, { id: 41, headers: { "Mcp-Method": null } });
    await expectRpcError(res, 400, HeaderMismatch, 41);
  });

  it("2026-07-28: an Mcp-Method that differs from the body method is rejected with 400 -32020", async () => {
    const res = await modernPost("tools/list", {}, { id: 42, headers: { "Mcp-Method": "prompts/list" } });
    await expectRpcError(res, 400, HeaderMismatch, 42);
  });

  it("2026-07-28: Mcp-Method values are case-sensitive (TOOLS/LIST is rejected with 400 -32020)", async () => {
    const res = await modernPost("tools/list", {}, { id: 43, headers: { "Mcp-Method": "TOOLS/LIST" } });
    await expectRpcError(res, 400, HeaderMismatch, 43);
  });
});

describe("Mcp-Name header", () => {
  const call = { name: "roll_dice", arguments: { sides: 6, count: 1 } };

  it("2026-07-28: tools/call without Mcp-Name is rejected with 400 -32020", async () => {
    const res = await modernPost("tools/call", call, { id: 51, headers: { "Mcp-Name": null } });
    await expectRpcError(res, 400, HeaderMismatch, 51);
  });

  it("2026-07-28: tools/call whose Mcp-Name differs from params.name is rejected with 400 -32020", async () => {
    const res = await modernPost("tools/call", call, { id: 52, headers: { "Mcp-Name": "greet" } });
    await expectRpcError(res, 400, HeaderMismatch, 52);
  });

  it("2026-07-28: Mcp-Name is compared case-sensitively (ROLL_DICE is rejected with 400 -32020)", async () => {
    const res = await modernPost("tools/call", call, { id: 53, headers: { "Mcp-Name": "ROLL_DICE" } });
    await expectRpcError(res, 400, HeaderMismatch, 53);
  });

  it("2026-07-28: prompts/get without Mcp-Name is rejected with 400 -32020", async () => {
    const res = await modernPost(
      "prompts/get",
      { name: "explain_unit", arguments: { unit: "kelvin" } },
      { id: 54, headers: { "Mcp-Name": null } },
    );
    await expectRpcError(res, 400, HeaderMismatch, 54);
  });

  it("2026-07-28: resources/read whose Mcp-Name differs from params.uri is rejected with 400 -32020", async () => {
    const res = await modernPost("resources/read", { uri: "info://about" }, { id: 55, headers: { "Mcp-Name": "units://kelvin" } });
    await expectRpcError(res, 400, HeaderMismatch, 55);
  });

  it("2026-07-28: Mcp-Name with surrounding whitespace is accepted (OWS is trimmed)", async () => {
    const result = await modernResult("tools/call", call, { headers: { "Mcp-Name": "  roll_dice\t" } });
    expect(result.isError).toBeUndefined();
    expect(result.content[0].text).toMatch(/^Rolled 1d6: /);
  });

  it("2026-07-28: a =?base64?…?= Mcp-Name is decoded before comparison", async () => {
    const result = await modernResult("tools/call", call, { headers: { "Mcp-Name": base64Header("roll_dice") } });
    expect(result.content[0].text).toMatch(/^Rolled 1d6: /);
  });

  it("2026-07-28: a base64 Mcp-Name carrying non-ASCII UTF-8 matches a non-ASCII URI", async () => {
    // The header passes (no -32020): the request reaches the resource lookup, which knows no such unit.
    const uri = "units://kélvin";
    const res = await modernPost("resources/read", { uri }, { id: 59, headers: { "Mcp-Name": base64Header(uri) } });
    const error = await expectRpcError(res, 200, InvalidParams, 59);
    expect(error.data).toEqual({ uri });
  });

  it("2026-07-28: a non-ASCII Mcp-Name sent raw instead of base64-encoded is rejected with 400 -32020", async () => {
    const uri = "units://kélvin";
    const res = await modernPost("resources/read", { uri }, { id: 60, headers: { "Mcp-Name": uri } });
    await expectRpcError(res, 400, HeaderMismatch, 60);
  });

  it("2026-07-28: a base64 Mcp-Name that decodes to a different value is rejected with 400 -32020", async () => {
    const res = await modernPost("tools/call", call, { id: 56, headers: { "Mcp-Name": base64Header("greet") } });
    await expectRpcError(res, 400, HeaderMismatch, 56);
  });

  it("2026-07-28: an Mcp-Name with invalid base64 is rejected with 400 -32020", async () => {
    const res = await modernPost("tools/call", call, { id: 57, headers: { "Mcp-Name": "=?base64?not*base64!?=" } });
    await expectRpcError(res, 400, HeaderMismatch, 57);
  });

  it("2026-07-28: an Mcp-Name whose base64 decodes to invalid UTF-8 is rejected with 400 -32020", async () => {
    const res = await modernPost("tools/call", call, { id: 58, headers: { "Mcp-Name": "=?base64?/w==?=" } });
    await expectRpcError(res, 400, HeaderMismatch, 58);
  });

  it("2026-07-28: the base64 markers are case-sensitive (=?BASE64?…?= is taken literally and mismatches)", async () => {
    const res = await modernPost("tools/call", call, {
      id: 59,
      headers: { "Mcp-Name": base64Header("roll_dice").replace("base64", "BASE64") },
    });
    await expectRpcError(res, 400, HeaderMismatch, 59);
  });

  it("2026-07-28: methods without a name or URI do not need Mcp-Name", async () => {
    const result = await modernResult("tools/list", {}, { headers: { "Mcp-Name": null } });
    expect(result.tools.length).toBeGreaterThan(0);
  });
});

describe("removed and unknown methods", () => {
  for (const method of [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/list",
    "no/such/method",
  ]) {
    it(`2026-07-28: ${method} with a modern envelope is answered 404 -32601`, async () => {
      const params: Record<string, unknown> =
        method === "initialize"
          ? { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "x", version: "1" } }
          : method === "logging/setLevel"
            ? { level: "info" }
            : method.startsWith("resources/")
              ? { uri: "info://about" }
              : {};
      const res = await modernPost(method, params, { id: `removed-${method}` });
      await expectRpcError(res, 404, MethodNotFound, `removed-${method}`);
    });
  }

  it("2026-07-28: prototype property names are not methods (constructor → 404 -32601)", async () => {
    const res = await modernPost("constructor", {}, { id: 61 });
    await expectRpcError(res, 404, MethodNotFound, 61);
  });
});

describe("id echo", () => {
  it("2026-07-28: ladder errors echo a string id unchanged", async () => {
    const res = await modernPost("tools/list", {}, { id: "req-α-1", headers: { "Mcp-Method": null } });
    await expectRpcError(res, 400, HeaderMismatch, "req-α-1");
  });

  it("2026-07-28: ladder errors echo an integer id as a number, not a string", async () => {
    const res = await modernPost("tools/list", {}, { id: 0, meta: null });
    const text = await res.clone().text();
    await expectRpcError(res, 400, InvalidParams, 0);
    expect(text).toContain('"id":0');
  });

  it("2026-07-28: -32021 for a missing client capability echoes the id", async () => {
    const res = await modernPost("tools/call", { name: "greet", arguments: {} }, { id: "cap-1" });
    await expectRpcError(res, 400, MissingCapability, "cap-1");
  });
});

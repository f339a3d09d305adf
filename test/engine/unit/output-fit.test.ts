/**
 * Whether a declared output can fit a budget (src/engine/mcp/output-fit.ts), the rule the app check and
 * the doctor share: an output's least JSON (what it requires) against the budget is a problem, its most
 * (maxLength, maxItems, a closed object) or none is what the doctor reports. And the doctor's judgement of
 * a view's Claude domain against the URL it is pointed at (scripts/doctor/checks/extensions.mjs).
 */
import { describe, expect, it } from "vitest";
import { leastJsonChars, mostJsonChars, outputCannotFit } from "../../../src/engine/mcp/output-fit";
import { claudeViewDomain, isClaudeDomain } from "../../../src/engine/mcp/view-hosts";
// @ts-expect-error: a plain .mjs script without type declarations
import { viewDomainJudged } from "../../../scripts/doctor/checks/extensions.mjs";

const rows = (minItems: number, maxItems?: number) => ({
  type: "object",
  required: ["rows"],
  additionalProperties: false,
  properties: {
    rows: {
      type: "array",
      minItems,
      ...(maxItems === undefined ? {} : { maxItems }),
      items: {
        type: "object",
        required: ["id"],
        additionalProperties: false,
        properties: { id: { type: "string", minLength: 8, maxLength: 8 } },
      },
    },
  },
});

describe("a declared output's size as JSON", () => {
  it("is at least what its required fields take at their least", () => {
    // {"rows":[{"id":"12345678"},…]}: 2 + 6 + 2 + (2 + 14 + 1) a row, less nothing for the last comma.
    expect(leastJsonChars(rows(3))).toBe(2 + 6 + 2 + 2 + 3 * (2 + 4 + 2 + 10 + 1));
    expect(JSON.stringify({ rows: [{ id: "12345678" }, { id: "12345678" }, { id: "12345678" }] }).length).toBeLessThanOrEqual(
      leastJsonChars(rows(3)),
    );
    // A value of several types is as small as its smallest.
    expect(leastJsonChars({ type: ["string", "null"], minLength: 40 })).toBe(1);
  });

  it("is at most what maxLength, maxItems and closed objects allow, and has no bound without them", () => {
    const most = mostJsonChars(rows(0, 3));
    expect(JSON.stringify({ rows: [{ id: "12345678" }, { id: "12345678" }, { id: "12345678" }] }).length).toBeLessThanOrEqual(most);
    expect(most).toBeLessThan(100);
    expect(mostJsonChars(rows(0))).toBe(Infinity);
    expect(mostJsonChars({ type: "object", properties: { ok: { type: "boolean" } } })).toBe(Infinity);
    expect(mostJsonChars({ type: "object", additionalProperties: false, properties: { ok: { type: "boolean" } } })).toBe(2 + 4 + 2 + 5);
    expect(mostJsonChars({ enum: ["a", "bcd"] })).toBe(5);
    expect(mostJsonChars({ anyOf: [{ type: "null" }, { type: "string" }] })).toBe(Infinity);
    expect(mostJsonChars({ $ref: "#/$defs/row" })).toBe(Infinity);
  });

  it("cannot fit a budget its least is over, named with the tool and the budget", () => {
    const tool = { name: "export_rows", outputSchema: rows(3000) };
    const least = leastJsonChars(tool.outputSchema);
    expect(outputCannotFit(tool, least, "its result budget")).toBeUndefined();
    expect(outputCannotFit(tool, least - 1, "its result budget")).toBe(
      `Tool "export_rows": its declared output takes at least ${least} characters as JSON, over its result budget of ${least - 1}, so every result would be cut`,
    );
    expect(outputCannotFit({ name: "plain" }, 1, "x")).toBeUndefined();
  });
});

describe("the doctor's judgement of a view's Claude domain", () => {
  const lib = { claudeViewDomain, isClaudeDomain };
  const at = (url: string) => ({ url, lib });

  it("passes the domain Claude derives from the URL, and a view without one", async () => {
    const url = "https://mcp.example.com/mcp";
    expect(await viewDomainJudged(at(url), "ui://a/view.html", await claudeViewDomain(url))).toBeUndefined();
    expect(await viewDomainJudged(at(url), "ui://a/view.html", undefined)).toBeUndefined();
  });

  it("faults a domain made for another URL, naming Claude, the value for this URL and the command that prints it", async () => {
    const url = "https://mcp.example.com/mcp";
    const other = await claudeViewDomain("https://mcp.example.com/mcp/");
    const { fault } = await viewDomainJudged(at(url), "ui://a/view.html", other);
    expect(fault.id).toBe("view-domain-wrong");
    expect(fault.shows).toMatch(/^Claude refuses the view ui:\/\/a\/view\.html/);
    expect(fault.why).toContain(`${other} is not ${await claudeViewDomain(url)}, the one Claude derives from ${url}`);
    expect(fault.fix).toContain(`npm run server-json -- --url ${url}`);
    // On a loopback URL (no URL a user adds) it is said, not faulted.
    const local = await viewDomainJudged(at("http://127.0.0.1:8787/mcp"), "ui://a/view.html", other);
    expect(local.fault).toBeUndefined();
    expect(local.note).toMatch(/run the doctor against the deployed URL/);
  });

  it("faults a domain not in Claude's form on any URL", async () => {
    for (const url of ["https://mcp.example.com/mcp", "http://localhost:8787/mcp"]) {
      const { fault } = await viewDomainJudged(at(url), "ui://a/view.html", "https://views.example.com");
      expect(fault.why).toMatch(/is not Claude's form/);
    }
  });
});

/**
 * The discovery documents' rules (src/engine/mcp/discovery.ts): every Server Card the engine builds
 * validates against the extension's JSON Schema (scripts/lib/server-card.schema.json, the snapshot
 * docs/discovery.md names), the registry name is derived as documented, and `server.json` keeps the
 * official registry's rules (schema 2025-12-11), which `registryProblems` names when broken.
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { cardValidator } from "../../../scripts/lib/server-card.mjs";
import {
  clip,
  discoveryWarnings,
  registryName,
  registryProblems,
  serverCard,
  serverJson,
  type SignIn,
} from "../../../src/engine/mcp/discovery";
// @ts-expect-error: a plain .mjs script without type declarations
import { mcpUrl, signInOf } from "../../../scripts/server-json.mjs";
import type { Implementation } from "../../../src/engine/mcp/types";

const wrongWith: (card: unknown) => string[] = cardValidator();

const LONG = "Converts temperatures between Celsius, Fahrenheit and Kelvin, rolls dice of any size, and greets whoever asks.";
const INFOS: Implementation[] = [
  { name: "weather", version: "1.0.0" },
  { name: "My Weather Server!", version: "2.1.0-beta.1", title: "Weather", description: "Forecasts." },
  {
    name: "w",
    version: "0.0.1",
    title: LONG,
    description: LONG,
    websiteUrl: "https://example.com/",
    icons: [{ src: "https://example.com/i.png" }],
  },
];
const URLS = ["https://mcp.example.com/mcp", "http://localhost:8787/mcp", "http://127.0.0.1:8787/mcp", "https://[::1]/mcp"];
const SIGN_INS: SignIn[] = ["none", "token", "oauth"];

describe("the Server Card", () => {
  it("validates against the extension's schema for every app, URL and sign-in", () => {
    const noSlash = {
      $schema: "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
      name: "no-slash",
      version: "1",
      description: "x",
    };
    expect(wrongWith(noSlash)).toEqual(['/name must match pattern "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$"']);
    for (const info of INFOS)
      for (const url of URLS)
        for (const signIn of SIGN_INS) {
          const card = serverCard(info, url, signIn);
          expect(wrongWith(card), JSON.stringify(card)).toEqual([]);
        }
  });

  it("names the registry name the fork set, else the host reversed and the app's name", () => {
    const info = { name: "My Weather Server!", version: "1" };
    expect(registryName(info, "mcp.example.com", "io.github.you/weather")).toBe("io.github.you/weather");
    expect(registryName(info, "mcp.example.com")).toBe("com.example.mcp/My-Weather-Server");
    expect(registryName(info, "weather.alice.workers.dev:443")).toBe("dev.workers.alice.weather/My-Weather-Server");
    expect(registryName(info, "127.0.0.1:8787")).toBe("127.0.0.1/My-Weather-Server");
    expect(registryName({ name: "!!!", version: "1" }, "localhost")).toBe("localhost/mcp");
  });

  it("keeps a description within 100 characters, cut at a word", () => {
    const cut = clip(LONG);
    expect(cut.length).toBeLessThanOrEqual(100);
    expect(cut.endsWith("…")).toBe(true);
    expect(LONG.startsWith(cut.slice(0, -1))).toBe(true);
    expect(clip("short")).toBe("short");
  });
});

describe("server.json", () => {
  it("carries the card's identity and one streamable-http remote, with the header a token needs", () => {
    const info = INFOS[1]!;
    const doc = serverJson(info, "https://mcp.example.com/mcp", "token", "com.example/weather") as any;
    expect(doc).toEqual({
      $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
      name: "com.example/weather",
      version: "2.1.0-beta.1",
      title: "Weather",
      description: "Forecasts.",
      remotes: [
        {
          type: "streamable-http",
          url: "https://mcp.example.com/mcp",
          headers: [expect.objectContaining({ name: "Authorization", isSecret: true })],
        },
      ],
    });
    expect(registryProblems(doc)).toEqual([]);
    const card = serverCard(info, "https://mcp.example.com/mcp", "token", "com.example/weather") as any;
    for (const key of ["name", "version", "title", "description"]) expect(doc[key]).toBe(card[key]);
    expect((serverJson(info, "https://mcp.example.com/mcp", "oauth") as any).remotes[0].headers).toBeUndefined();
  });

  it("names what the registry refuses: the name, a range or latest, a long description, no https remote", () => {
    const good = serverJson(INFOS[0]!, "https://mcp.example.com/mcp", "none") as any;
    expect(registryProblems(good)).toEqual([]);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: "weather" }, /^name "weather"/],
      [{ name: "a/b/c" }, /^name/],
      [{ version: "latest" }, /^version "latest"/],
      [{ version: "^1.2.3" }, /^version/],
      [{ version: "1.x" }, /^version/],
      [{ version: ">=1.0.0" }, /^version/],
      [{ description: "x".repeat(101) }, /^description has 101 characters/],
      [{ description: "" }, /^description/],
      [{ remotes: [{ type: "streamable-http", url: "http://mcp.example.com/mcp" }] }, /^remotes/],
      [{ remotes: [{ type: "sse", url: "https://mcp.example.com/sse" }] }, /^remotes/],
    ];
    for (const [change, problem] of cases) {
      const problems = registryProblems({ ...good, ...change });
      expect(problems, JSON.stringify(change)).toHaveLength(1);
      expect(problems[0]).toMatch(problem);
    }
  });
});

describe("npm run server-json's inputs, and the app check", () => {
  it("reads how clients get in from the wrangler config, and takes the deployed URL", () => {
    expect(signInOf({ vars: { AUTH_MODE: "token" } })).toBe("token");
    expect(signInOf({ vars: { AUTH_MODE: "jwt" } })).toBe("oauth");
    expect(signInOf({ main: "src/engine/oauth/index.ts", vars: {} })).toBe("oauth");
    expect(signInOf({ vars: {} })).toBe("none");
    expect(mcpUrl("https://weather.alice.workers.dev")).toBe("https://weather.alice.workers.dev/mcp");
    expect(mcpUrl("https://mcp.example.com/mcp/")).toBe("https://mcp.example.com/mcp");
    expect(() => mcpUrl("weather.example.com")).toThrow(/is not a URL/);
    expect(() => mcpUrl("ftp://x/mcp")).toThrow(/http\(s\)/);
  });

  it("warns of what the card would cut or the registry refuse", () => {
    expect(discoveryWarnings({ name: "w", version: "1", description: "Forecasts." }, "io.github.you/w")).toEqual([]);
    const warnings = discoveryWarnings({ name: "w", version: "1", description: LONG }, "weather");
    expect(warnings).toEqual([
      `info.description has ${LONG.length} characters; the Server Card and the registry take 100, so it is cut`,
      'discovery({ name: "weather" }) is not reverse-DNS with one slash (e.g. io.github.you/weather): the card is invalid',
    ]);
    expect(discoveryWarnings({ name: "w", version: "1" }, undefined)[0]).toMatch(/^info has no description/);
  });
});

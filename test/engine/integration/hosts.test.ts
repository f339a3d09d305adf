/**
 * The Host and Origin allow-lists with their defaults: a first deploy on workers.dev is served without
 * editing ALLOWED_HOSTS, while DNS-rebinding and cross-site browser requests stay out.
 */
import { describe, expect, it } from "vitest";
import { modernPost } from "../helpers/mcp";

const discover = (headers: Record<string, string>) => modernPost("server/discover", {}, { headers });

describe("Host and Origin defaults", () => {
  it("a workers.dev hostname is served without configuration (the first deploy)", async () => {
    const res = await discover({ Host: "my-mcp.my-account.workers.dev" });
    expect(res.status).toBe(200);
  });

  it("loopback names are served (wrangler dev), any port", async () => {
    for (const host of ["localhost:8787", "127.0.0.1:9100", "[::1]:8787"]) expect((await discover({ Host: host })).status).toBe(200);
  });

  it("any other Host gets 403 (DNS-rebinding protection)", async () => {
    const res = await discover({ Host: "attacker.example" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/ALLOWED_HOSTS/);
  });

  it("a name that only ends like workers.dev is not under it", async () => {
    expect((await discover({ Host: "evilworkers.dev" })).status).toBe(403);
  });

  it("a page on the server's own origin may call it, with CORS headers", async () => {
    const res = await discover({ Host: "my-mcp.my-account.workers.dev", Origin: "https://my-mcp.my-account.workers.dev" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("https://my-mcp.my-account.workers.dev");
  });

  it("the wildcard admits Hosts, never Origins: another workers.dev site gets 403", async () => {
    const res = await discover({ Host: "my-mcp.my-account.workers.dev", Origin: "https://someone-else.workers.dev" });
    expect(res.status).toBe(403);
  });

  it("a local tool's page (another loopback port) may call the local server", async () => {
    const res = await discover({ Host: "localhost:8787", Origin: "http://localhost:6274" });
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost:6274");
  });

  it("an origin that is not a web page (chrome-extension://, ftp://) gets 403 even on an allowed host name", async () => {
    for (const origin of ["chrome-extension://localhost", "ftp://localhost"]) {
      const res = await discover({ Host: "localhost", Origin: origin });
      expect(res.status, origin).toBe(403);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    }
  });
});

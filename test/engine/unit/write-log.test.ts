/**
 * The engine's one log writer (src/engine/mcp/telemetry.ts writeLog): every line is one JSON object
 * that Workers Logs can index, `"mcp"` first, whatever fields it is given.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { writeLog } from "../../../src/engine/mcp/telemetry";

describe("writeLog", () => {
  afterEach(() => vi.restoreAllMocks());

  it("writes one JSON line, the kind first, to the console method its level names", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    writeLog("error", "mount_failed", { mount: "up", message: "line\u2028break" });
    expect(error).toHaveBeenCalledTimes(1);
    const line = String(error.mock.calls[0]![0]);
    expect(JSON.parse(line)).toEqual({ mcp: "mount_failed", mount: "up", message: "line\u2028break" });
    expect(line.startsWith('{"mcp":"mount_failed",')).toBe(true);
    expect(line).not.toContain("\u2028");
  });

  it("is still JSON when every field is undefined (or there is none)", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    writeLog("log", "event_wake", { shards: undefined });
    writeLog("log", "event_wake", {});
    for (const [line] of log.mock.calls) expect(JSON.parse(String(line))).toEqual({ mcp: "event_wake" });
  });
});

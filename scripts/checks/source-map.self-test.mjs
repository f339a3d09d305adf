// Why: a check that cannot fail proves nothing. This plants an engine with a folder and a root file
// the map does not name, and a map line for a file that is gone; the check must name all three, and
// pass a tree whose map names exactly what is there.
import { checkSourceMap } from "./source-map.mjs";
import { expectations, plantTree } from "./tree.mjs";

const map = (lines) =>
  ["# Architecture", "", "## Project structure", "", "```", "src/", "  engine/           the engine", ...lines, "```", ""].join("\n");
const ENGINE = { "src/engine/worker.ts": "", "src/engine/mcp/app.ts": "", "src/engine/events/index.ts": "", "src/engine/mount.ts": "" };

export async function selfTestSourceMap() {
  const { expect, result } = expectations("source map");
  const faulty = checkSourceMap(
    plantTree("source-map-faulty", {
      ...ENGINE,
      "docs/architecture.md": map([
        "    worker.ts         the Worker",
        "      nested.ts       not at the engine's level",
        "    mcp/              the core",
        "    gone.ts           moved away",
      ]),
    }),
  );
  expect(!faulty.ok, "a map that misses a folder and a file fails");
  expect(
    /events\//.test(faulty.message) && /mount\.ts/.test(faulty.message),
    `the missing folder and file are named (got: ${faulty.message})`,
  );
  expect(/gone\.ts/.test(faulty.message), `a mapped file that is gone is named (got: ${faulty.message})`);
  const clean = checkSourceMap(
    plantTree("source-map-clean", {
      ...ENGINE,
      "docs/architecture.md": map([
        "    worker.ts, mount.ts   the Worker, mounts",
        "    mcp/              the core",
        "    events/           events",
      ]),
    }),
  );
  expect(clean.ok, `a map that names every folder and root file passes (got: ${clean.message})`);
  return result();
}

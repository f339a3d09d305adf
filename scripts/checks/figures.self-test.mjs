// Why: a check that cannot fail proves nothing. This plants a figures page and two pages that quote
// it: one figure quoted right (plain and in bold), one stale (the page kept an older size), one that
// names a key the figures page lacks. The check must name exactly the last two, by page and line.
import { checkFigures } from "./figures.mjs";
import { expectations, plantTree } from "./tree.mjs";

const FIGURES = [
  "# Figures",
  "",
  "| figure | value |",
  "| --- | --- |",
  "| `bundle.engine.gzip` | 44.5 KiB |",
  "| `test.npm` | 22 s |",
  "",
].join("\n");

export function selfTestFigures() {
  const { expect, result } = expectations("figures");
  const tree = plantTree("figures", {
    "docs/figures.md": FIGURES,
    "README.md":
      "`npm test` takes about 22 s<!-- figure: test.npm --> here.\nThe engine is **44.5 KiB**<!-- figure: bundle.engine.gzip --> gzip.\n",
    "docs/performance.md":
      "# Performance\n\nThe engine is 43.9 KiB <!-- figure: bundle.engine.gzip --> gzip.\nIt starts in 3 ms<!-- figure: startup.ms -->.\n",
  });
  const r = checkFigures(tree);
  expect(!r.ok, "a stale figure fails the check");
  expect(r.quoted === 4, `every marker is read (read ${r.quoted})`);
  expect(r.stale.length === 2, `exactly the stale and the unknown figure are reported (got ${r.stale.length}: ${r.stale.join("; ")})`);
  expect(
    r.stale.some((s) => s.startsWith("docs/performance.md:3 ") && s.includes("44.5 KiB")),
    "the stale size is named by page, line and the current value",
  );
  expect(
    r.stale.some((s) => s.startsWith("docs/performance.md:4 ") && s.includes("startup.ms")),
    "an unknown key is named",
  );
  const clean = checkFigures(
    plantTree("figures-clean", { "docs/figures.md": FIGURES, "README.md": "About 22 s<!-- figure: test.npm -->.\n" }),
  );
  expect(clean.ok, `a page that quotes the current value passes (got: ${clean.message})`);
  return result();
}

// Why: an export nothing imports is a promise no caller holds the engine to. It hides dead code (a
// function kept alive by its `export` alone) and widens what a reader must treat as a module's
// surface. This check asks TypeScript's language service, for every export of a file under src/,
// whether any other file of the project (src/ and test/, as tsconfig.json includes them) refers to
// it. PUBLIC lists the exports that are for the app, the client's users or wrangler, not for other
// files; anything else unreferenced elsewhere fails the check (drop its `export`, or delete it).
//
//   node scripts/checks/unused-exports.mjs [root]
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "./tree.mjs";

/** `file: name` of exports meant for users outside the project's files. */
export const PUBLIC = new Set([
  // Entry points: wrangler and a fork's router import their defaults.
  "src/index.ts: default",
  "src/server.ts: default",
  "src/oauth.ts: default",
  // Types an app may name when it writes its own helpers around the app API.
  "src/engine/mcp/app.ts: DefaultEnv",
  "src/engine/mcp/app.ts: ObjectSchema",
  "src/engine/mcp/input.ts: PrimitiveSchema",
  "src/engine/mcp/input.ts: ElicitFormParams",
  // The client's public types and its skills and events modules, imported on their own.
  "src/engine/client/types.ts: Page",
  "src/engine/client/types.ts: ResourceTemplate",
  "src/engine/client/types.ts: Prompt",
  "src/engine/client/skills.ts: SKILLS_EXTENSION",
  "src/engine/client/skills.ts: LoadedSkill",
  "src/engine/client/events.ts: EVENTS_EXTENSION",
  "src/engine/client/event-types.ts: EventDeliveryMode",
  "src/engine/client/event-types.ts: EventType",
  "src/engine/client/event-types.ts: ListEventsResult",
  "src/engine/client/event-types.ts: WebhookSubscription",
  "src/engine/client/event-types.ts: DeliveryStatus",
  "src/engine/client/event-types.ts: SubscribeResult",
  "src/engine/client/event-types.ts: PollParams",
  "src/engine/client/event-types.ts: PollResult",
]);

/** @returns {{ ok: boolean, message: string, unused: string[] }} */
export function checkUnusedExports(root = ROOT, isPublic = (key) => PUBLIC.has(key)) {
  const ts = createRequire(path.join(ROOT, "package.json"))("typescript");
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const files = config.fileNames;
  const service = ts.createLanguageService({
    getScriptFileNames: () => files,
    getScriptVersion: () => "1",
    getScriptSnapshot: (f) => (ts.sys.fileExists(f) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(f)) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => config.options,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  });
  const program = service.getProgram();
  const checker = program.getTypeChecker();
  const src = path.join(root, "src") + path.sep;
  let total = 0;
  const unused = [];
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(src)) continue;
    const module = checker.getSymbolAtLocation(file);
    if (!module) continue;
    for (const symbol of checker.getExportsOfModule(module)) {
      const declaration = symbol.declarations?.[0];
      // Re-exports (the public modules) are references, not declarations of their own.
      if (!declaration || declaration.getSourceFile() !== file) continue;
      total++;
      const at = (declaration.name ?? declaration).getStart();
      const elsewhere = (service.findReferences(file.fileName, at) ?? []).some((r) =>
        r.references.some((ref) => ref.fileName !== file.fileName),
      );
      const key = `${path.relative(root, file.fileName).split(path.sep).join("/")}: ${symbol.name}`;
      if (!elsewhere && !isPublic(key)) unused.push(key);
    }
  }
  const head = `unused exports: ${unused.length} of ${total} exports under src/ referenced by no other file and not public`;
  return { ok: unused.length === 0, message: unused.length ? `${head}:\n${unused.map((u) => `    ${u}`).join("\n")}` : head, unused };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = checkUnusedExports(process.argv[2] ?? ROOT);
  console.log(r.message);
  process.exit(r.ok ? 0 : 1);
}

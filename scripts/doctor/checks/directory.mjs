// Why: Claude's and ChatGPT's connector directories refuse a server whose tools lack a title or the
// explicit safety hints, or (Claude's) have names over 64 characters. The app check warns of it in
// `npm test`; here the live tools/list is judged by the same rules (src/engine/mcp/directory.ts), as
// information, or as faults with --directory for a server about to be submitted.
import { fault } from "../report.mjs";

export async function directoryChecks(ctx, report) {
  const tools = ctx.state.tools;
  if (!tools) return;
  await report.step("connector directory rules (titles, explicit hints, names ≤ 64)", () => {
    const warnings = ctx.lib.directoryWarnings(tools);
    if (!warnings.length) return { detail: `${tools.length} tool(s) meet Claude's and ChatGPT's directory rules` };
    if (!ctx.directory)
      return {
        detail: `${warnings.length} tool rule(s) a directory review would refuse (pass --directory to make them faults): ${warnings.join("; ")}`,
      };
    return {
      faults: warnings.map((w) =>
        fault("directory", {
          shows: "Claude's or ChatGPT's directory review refuses the server (it still works as a custom connector)",
          why: w,
          fix: "in src/server.ts give the tool a title and set annotations.readOnlyHint, destructiveHint and openWorldHint to true or false (and keep its name within 64 characters); `npm test` lists the same as warnings",
        }),
      ),
    };
  });
}

/**
 * What Claude's and ChatGPT's connector directories require of each tool before they list a server:
 * a human title, the safety hints set explicitly (a hint left out is read as its cautious default and
 * the review asks for it), and, for Claude's, a name of at most 64 characters. A server that breaks them
 * works; it is only refused a listing, so these are warnings (`npm test`, `npm run check:app`) and faults
 * only when asked (`npm run doctor -- <url> --directory`, on the live tools/list).
 */

/** A tool as defined in the app or as tools/list lists it: both carry these fields. */
type DirectoryTool = {
  name: string;
  title?: string;
  annotations?: { title?: string; readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
};

/** Claude's directory limit on a tool's name (MCP itself allows 128 characters). */
const DIRECTORY_NAME_LIMIT = 64;

const HINTS = [
  ["readOnlyHint", "Claude's and ChatGPT's directories"],
  ["destructiveHint", "Claude's and ChatGPT's directories"],
  ["openWorldHint", "ChatGPT's directory"],
] as const;

/** One line per directory rule a tool breaks, naming the tool, the rule and whose directory has it. */
export function directoryWarnings(tools: readonly DirectoryTool[]): string[] {
  const warnings: string[] = [];
  for (const tool of tools) {
    const at = `Tool "${tool.name}"`;
    const title = tool.title ?? tool.annotations?.title;
    if (typeof title !== "string" || title.trim() === "")
      warnings.push(`${at} has no title: Claude's and ChatGPT's directories require one (title: "…")`);
    const missing = HINTS.filter(([hint]) => typeof tool.annotations?.[hint] !== "boolean");
    if (missing.length)
      warnings.push(
        `${at} does not set ${missing.map(([hint]) => `annotations.${hint}`).join(", ")} to true or false: ` +
          `the directories require each explicitly (${missing.map(([hint, whose]) => `${hint}: ${whose}`).join("; ")})`,
      );
    if (String(tool.name).length > DIRECTORY_NAME_LIMIT)
      warnings.push(
        `${at} has a name of ${String(tool.name).length} characters: Claude's directory allows at most ${DIRECTORY_NAME_LIMIT}`,
      );
  }
  return warnings;
}

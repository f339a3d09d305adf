/** The same tool beside Skills (the conformance fixture's manifest; the files are Static Assets). */
import { createMcpWorker, defineApp, skills, type SkillsManifest } from "../../../src/mcp";
import manifest from "../conformance/skills.json";
import { convert, info } from "./tool";

const worker = createMcpWorker(defineApp({ info, tools: [convert()], extensions: [skills(manifest as SkillsManifest)] }));
export const { McpHub, McpSession, McpTask } = worker;
export default worker;

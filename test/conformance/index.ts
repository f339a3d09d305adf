/** The Worker entry of the conformance fixture app (`npm run dev:conformance`). */
import { createMcpWorker } from "../../src/worker";
import { sessionObjectFor } from "../../src/objects/session";
import app from "./app";

export { McpHub } from "../../src/objects/hub";
export class McpSession extends sessionObjectFor(app) {}
export default createMcpWorker(app);

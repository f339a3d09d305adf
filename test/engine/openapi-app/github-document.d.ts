/** GitHub's REST API as `npm run openapi` compacts it (github-document.js). */
import type { CompactDocument } from "../../../src/mcp";

declare const document: CompactDocument;
export default document;

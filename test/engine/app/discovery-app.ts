/**
 * Fixture apps with `discovery()` (test/engine/integration/discovery.test.ts): the engine test app's
 * definitions with a description, a website and an icon, so its 2025 sessions run in the engine app's
 * own session class (MCP_SESSION); one with a registry name of its own and the page off; one with the
 * card off. Kept out of the engine app, whose bundle the budget measures.
 */
import { defineApp, discovery } from "../../../src/mcp";
import engineApp from "./app";

export const DISCOVERY_INFO = {
  ...engineApp.info,
  description: 'Temperature conversion, dice & a <greeting> for "discovery" tests.',
  websiteUrl: "https://example.com/engine",
  icons: [{ src: "https://example.com/icon.png", mimeType: "image/png", sizes: ["48x48"] }],
};

export default defineApp({ ...engineApp, info: DISCOVERY_INFO, discovery: discovery() });

/** A fork's own registry name, and no page for browsers. */
export const namedApp = defineApp({
  ...engineApp,
  info: DISCOVERY_INFO,
  discovery: discovery({ name: "io.github.someone/weather", page: false }),
});

/** The card (and so the catalog) turned off: only the page is served. */
export const pageOnlyApp = defineApp({ ...engineApp, info: DISCOVERY_INFO, discovery: discovery({ card: false }) });

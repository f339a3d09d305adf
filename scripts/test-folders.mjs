// Why: which folders under test/ are the engine's and which test files are the fork's. `npm test`
// (vitest.config.ts) runs every *.test.ts outside the engine's folders; the fork drill treats those
// same files as the fork's. One list, so the two cannot disagree.

/** The engine's folders under test/: its own suites, fixtures and helpers, never a fork's tests. */
export const ENGINE_TEST_FOLDERS = ["engine", ".tmp"];

/** Shipped with the template and run by `npm test` on whatever app src/server.ts defines. */
export const APP_CHECKS_FOLDER = "app-checks";

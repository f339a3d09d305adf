/**
 * The opt-in for AUTH_MODE=jwt: `createMcpWorker(app, { jwt: jwtAuth })`. Only a Worker that passes
 * it carries `jose` (about 6.6 KiB gzip), and even there jose is evaluated on the first token, not at
 * start-up.
 */
import type { JwtAuth } from "./auth";

export const jwtAuth: JwtAuth = (cfg) => import("./jwt").then(({ jwtChecker }) => jwtChecker(cfg));

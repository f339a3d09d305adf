// Types `env` from "cloudflare:test" with the Worker's bindings (MCP_SESSION, MCP_HUB, vars).
type WorkerEnv = import("../src/engine/env").Env;
declare namespace Cloudflare {
  interface Env extends WorkerEnv {}
}

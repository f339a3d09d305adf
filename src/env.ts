/** What the engine finds in `env`: its settings (vars and secrets), its Durable Object bindings, the optional metrics dataset. */
import type { Vars } from "./config";
import type { ObjectBindings } from "./objects/contracts";

export type Env = Vars &
  ObjectBindings & {
    /** Optional Workers Analytics Engine dataset: one data point per request (README → Observability). */
    MCP_METRICS?: AnalyticsEngineDataset;
  };

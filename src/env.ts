/** What the engine finds in `env`: its settings (vars and secrets) and its Durable Object bindings. */
import type { Vars } from "./config";
import type { ObjectBindings } from "./objects/contracts";

export type Env = Vars & ObjectBindings;

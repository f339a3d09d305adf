// Scratch driver: the bench's fan-out phase alone, on the checkout it is run from.
import { fanout } from "./bench/lib/fanout.mjs";
const shards = (process.argv[2] ?? "1,8").split(",").map(Number);
const sessions = Number(process.argv[3] ?? 500);
const listeners = (process.argv[4] ?? "").split(",").filter(Boolean).map(Number);
const out = await fanout({ shardCounts: shards, listeners, sessions, rounds: 5, roundMs: 20_000 }, (m) => console.log(m));
console.log(JSON.stringify(out.rows ?? out, null, 1).slice(0, 3000));
process.exit(0);

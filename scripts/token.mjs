// Why: a scoped app is tried with callers of different scopes; this mints a token for one, which
// `npm run dev` accepts (and a deployed Worker never does: src/engine/http/dev-tokens.ts). The
// caller is `mcp-dev#<sub>`; its scopes are the token's; `--claim` adds claims handlers may read
// (those the app names in defineAuthorization({ claims })). Prints the token alone, for a shell:
//
//   npm run token -- --sub alice --scope "tickets:read tickets:write" [--claim email=alice@example.com] [--ttl 3600]
//   curl -H "Authorization: Bearer $(npm run -s token -- --sub alice --scope tickets:read)" ...
import { parseArgs } from "node:util";
import { devTokenKey, mintDevToken } from "./lib/dev-token.mjs";

let values;
try {
  ({ values } = parseArgs({
    options: {
      sub: { type: "string" },
      scope: { type: "string", default: "" },
      claim: { type: "string", multiple: true, default: [] },
      ttl: { type: "string", default: "86400" },
    },
  }));
} catch (err) {
  console.error(`npm run token: ${err.message}`);
  process.exit(2);
}
const ttl = Number(values.ttl);
if (!values.sub || !Number.isInteger(ttl) || ttl <= 0) {
  console.error(
    'npm run token -- --sub <user> [--scope "a b"] [--claim name=value ...] [--ttl seconds]\n  a token of user <user> for npm run dev (restart npm run dev once after the first token)',
  );
  process.exit(2);
}
/** @type {Record<string, unknown>} */
const claims = {};
for (const c of values.claim) {
  const at = c.indexOf("=");
  if (at <= 0) {
    console.error(`npm run token: --claim takes name=value, got "${c}"`);
    process.exit(2);
  }
  claims[c.slice(0, at)] = c.slice(at + 1);
}
// npm writes its own "> script" banner to stdout before the token unless it runs silent (`-s`), so
// `$(npm run token …)` would capture the banner too: say so where a shell captures the output.
if (!process.stdout.isTTY && process.env.npm_lifecycle_event && process.env.npm_config_loglevel !== "silent")
  console.error("npm run token: npm printed its banner on stdout before the token; capture with `npm run -s token -- …`");
// The project is where npm runs the script (its root), as for npm run dev.
console.log(
  await mintDevToken(devTokenKey(process.cwd()), {
    sub: values.sub,
    scope: values.scope.trim().split(/\s+/).filter(Boolean).join(" "),
    claims,
    ttlSeconds: ttl,
  }),
);

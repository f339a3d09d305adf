/**
 * The search behind `search_tools` (docs/tools-at-scale.md): BM25F over each tool's fields, each
 * with its weight: the name's words (split on `_`, `-`, `.`, `/` and camelCase), the title, the
 * description, and the names of its arguments. Words are folded before they are counted: case,
 * plurals and -ed/-ing endings (a light stemmer), and the verbs APIs name one act by (get/fetch,
 * create/add, delete/remove, update/edit…) to one word; a query word also looks for its looser
 * kin at a lower weight (`show` finds both get and list; `my` finds "the authenticated user").
 * Plain BM25 over names and summaries misses most plain-language requests; this finds most of them
 * (bench/tool-search/). An index is built once per set of tools, when first searched, not per request.
 */

/** A document's fields and their weights. */
const FIELDS = [
  ["name", 3],
  ["title", 2],
  ["description", 1],
  ["args", 0.5],
] as const;
type Field = (typeof FIELDS)[number][0];

/** BM25's saturation and length normalisation, the usual values. */
const K1 = 1.2;
const B = 0.75;
/** The weight of a query word's looser kin, against the word itself. */
const KIN = 0.5;
/** Only the start of a long description is indexed: it says what the tool does; the rest, how. */
const DESCRIPTION_CHARS = 600;

/** Words that say nothing about which tool is meant. */
const STOP_WORDS =
  "a an the of to in on for by with from at and or is are be been do does did can could would should will i me we us you it its this that these those what which who whom how when where why there here some any please want need like just also into about as all my our your their";

/** One act, many verbs, one thing, many names: each folds to the first, in tools and queries alike. */
const SAME: readonly string[][] = [
  ["get", "fetch", "retrieve", "read", "lookup", "obtain", "describe", "detail", "details"],
  ["create", "add", "new", "make", "insert", "register"],
  ["delete", "remove", "del", "erase", "destroy", "drop", "unset", "rm"],
  ["update", "edit", "modify", "change", "patch", "set", "rename", "alter"],
  ["list", "enumerate", "ls"],
  ["search", "query", "find"],
  ["repo", "repository", "repositories", "repos"],
  ["org", "organization", "organisation", "orgs", "organizations"],
  ["pull", "pulls", "pr", "prs"],
  ["follow", "follower", "followers", "following"],
  ["contributor", "contributors", "contribute", "contributed", "contribution", "contributions"],
  ["user", "users", "account", "person", "people"],
  ["issue", "ticket", "bug"],
  ["comment", "reply"],
  ["workflow", "ci", "pipeline", "action", "actions"],
  ["authenticated", "logged", "login"],
];

/** Several words that name one thing, read as its one word (`pull request` → pull). */
const PHRASES: readonly [RegExp, string][] = [
  [/\bpull[\s_-]+requests?\b/gi, "pull"],
  [/\brate[\s_-]+limits?\b/gi, "ratelimit"],
  [/\bweb[\s_-]?hooks?\b/gi, "webhook"],
];

/** A query word's looser kin, found at KIN weight: plain-language words for what APIs name otherwise. */
const KIN_OF: Readonly<Record<string, readonly string[]>> = {
  show: ["get", "list"],
  view: ["get", "list"],
  see: ["get", "list"],
  display: ["get", "list"],
  check: ["get", "list"],
  look: ["get", "search"],
  which: ["list"],
  have: ["list"],
  history: ["list"],
  all: ["list"],
  every: ["list"],
  everyone: ["list", "member"],
  who: ["user", "list"],
  my: ["authenticated"],
  mine: ["authenticated"],
  me: ["authenticated"],
  i: ["authenticated"],
  am: ["authenticated"],
  profile: ["user"],
  open: ["create"],
  start: ["create"],
  leave: ["create"],
  post: ["create"],
  write: ["create"],
  give: ["add"],
  put: ["add", "update"],
  close: ["update"],
  stop: ["cancel"],
  abort: ["cancel"],
  retry: ["rerun"],
  rerun: ["run"],
  build: ["workflow", "run"],
  file: ["content"],
  copy: ["fork"],
  notify: ["webhook"],
  ask: ["request"],
  approve: ["review"],
  review: ["reviewer"],
  prevent: ["lock", "block"],
  left: ["ratelimit"],
  remaining: ["ratelimit"],
  quota: ["ratelimit"],
  starred: ["stargazer"],
  project: ["repo"],
  version: ["release"],
};

/**
 * The word tables as lookups, made on the first search: built at the module's top level they would be
 * code that runs on import, which keeps this module in the bundle of an app that never searches.
 */
let lookups: { canonical: Map<string, string>; stop: Set<string> } | undefined;
function tables() {
  if (lookups) return lookups;
  const canonical = new Map<string, string>();
  for (const group of SAME) for (const word of group) if (!canonical.has(word)) canonical.set(word, group[0]!);
  return (lookups = { canonical, stop: new Set(STOP_WORDS.split(" ")) });
}

/** A word with its ending taken off: plurals, -ed, -ing, a doubled last consonant, a final e. */
function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith("ing") && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith("ed") && w.length > 4) w = w.slice(0, -2);
  if (w.length > 3 && w.at(-1) === w.at(-2) && !"lsz".includes(w.at(-1)!)) w = w.slice(0, -1);
  if (w.endsWith("e") && w.length > 3) w = w.slice(0, -1);
  return w;
}

/** The text's words, split on anything not a letter or digit and at camelCase humps, lower case. */
function words(text: string): string[] {
  let phrased = text;
  // Most texts hold no phrase: one test spares them the replacements.
  if (PHRASE_START.test(text)) for (const [phrase, word] of PHRASES) phrased = phrased.replace(phrase, word);
  return phrased
    .replace(CAMEL_HUMP, "$1 $2")
    .toLowerCase()
    .split(NOT_WORD)
    .filter((w) => w !== "");
}

const PHRASE_START = /pull|rate|web/i;
const CAMEL_HUMP = /([a-z0-9])([A-Z])/g;
const NOT_WORD = /[^a-z0-9]+/;

/** Each word's term, once ("" for a stop word): an API's descriptions say the same few thousand words over and over. */
let folded: Map<string, string> | undefined;

/** A word as the index counts it: folded to its act, then stemmed; stop words are none. */
function term(word: string): string | undefined {
  folded ??= new Map();
  let t = folded.get(word);
  if (t === undefined) {
    const { canonical, stop } = tables();
    const same = canonical.get(word);
    t = same ? stem(same) : stop.has(word) ? "" : stem(word);
    // Bounded: a client's queries must not grow it without end.
    if (folded.size < 50_000) folded.set(word, t);
  }
  return t === "" ? undefined : t;
}

function terms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    const t = term(w);
    if (t !== undefined) out.push(t);
  }
  return out;
}

/** What the index reads of a tool. */
interface Indexed {
  name: string;
  title?: string;
  description?: string;
  args?: readonly string[];
}

export interface SearchIndex {
  search(query: string, accept: (doc: number) => boolean, limit: number): number[];
}

export function buildIndex(docs: readonly Indexed[]): SearchIndex {
  const fieldTerms = docs.map((d) => ({
    name: terms(d.name),
    title: terms(d.title ?? ""),
    description: terms((d.description ?? "").slice(0, DESCRIPTION_CHARS)),
    args: (d.args ?? []).flatMap(terms),
  }));
  const average = {} as Record<Field, number>;
  for (const [field] of FIELDS)
    average[field] = Math.max(1, fieldTerms.reduce((n, f) => n + f[field].length, 0) / Math.max(1, docs.length));
  // Per term, pairs of numbers: a document, and its weighted, length-normalised frequency summed over the fields.
  const postings = new Map<string, number[]>();
  fieldTerms.forEach((fields, doc) => {
    const tf = new Map<string, number>();
    for (const [field, weight] of FIELDS) {
      const list = fields[field];
      const norm = 1 - B + (B * list.length) / average[field];
      for (const t of list) tf.set(t, (tf.get(t) ?? 0) + weight / norm);
    }
    for (const [t, f] of tf) {
      let list = postings.get(t);
      if (!list) postings.set(t, (list = []));
      list.push(doc, f);
    }
  });
  const idf = (t: string) => {
    const n = (postings.get(t)?.length ?? 0) / 2;
    return Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
  };
  return {
    search(query, accept, limit) {
      const wanted = new Map<string, number>();
      for (const word of words(query)) {
        const t = term(word);
        if (t !== undefined) wanted.set(t, Math.max(wanted.get(t) ?? 0, 1));
        for (const kin of KIN_OF[word] ?? []) {
          const k = term(kin) ?? kin;
          wanted.set(k, Math.max(wanted.get(k) ?? 0, KIN));
        }
      }
      const scores = new Map<number, number>();
      for (const [t, weight] of wanted) {
        const w = weight * idf(t);
        const list = postings.get(t) ?? [];
        for (let i = 0; i < list.length; i += 2) {
          const [doc, tf] = [list[i]!, list[i + 1]!];
          scores.set(doc, (scores.get(doc) ?? 0) + (w * tf * (K1 + 1)) / (tf + K1));
        }
      }
      return [...scores]
        .filter(([doc]) => accept(doc))
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, limit)
        .map(([doc]) => doc);
    },
  };
}

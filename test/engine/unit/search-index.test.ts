/**
 * The search behind search_tools (src/engine/mcp/surfaces/search-index.ts): words are folded before
 * they are counted (plurals and endings, the verbs APIs name one act by, `pull request`), plain words
 * reach their API kin, a name's words weigh more than a description's, and a filter decides which
 * tools may be answered. bench/tool-search.mjs measures its recall on GitHub's API.
 */
import { describe, expect, it } from "vitest";
import { buildIndex } from "../../../src/engine/mcp/surfaces/search-index";

const docs = [
  { name: "issues_create", title: "Create an issue" },
  { name: "issues_delete-comment", title: "Delete an issue comment" },
  { name: "pulls_list", title: "List pull requests", description: "Lists pull requests in a repository." },
  { name: "repos_list-for-authenticated-user", title: "List repositories for the authenticated user" },
  { name: "repos_list-for-user", title: "List repositories for a user", args: ["username"] },
  { name: "actions_cancel-workflow-run", title: "Cancel a workflow run" },
  { name: "getWeatherForecast", description: "The forecast for a city." },
];
const index = buildIndex(docs);
const top = (query: string, limit = 1, accept = (_: number) => true) => index.search(query, accept, limit).map((i) => docs[i]!.name);

describe("search_tools' index", () => {
  it("folds verbs, plurals and endings: remove finds delete, add finds create, comments finds comment", () => {
    expect(top("remove comments")).toEqual(["issues_delete-comment"]);
    expect(top("add a new issue")).toEqual(["issues_create"]);
  });

  it("reads `pull request` as the one thing it names, and camelCase names as words", () => {
    expect(top("show me the open PRs")).toEqual(["pulls_list"]);
    expect(top("weather forecast")).toEqual(["getWeatherForecast"]);
  });

  it("reaches plain words' API kin: my finds the authenticated user's, stop finds cancel", () => {
    expect(top("list my repositories")).toEqual(["repos_list-for-authenticated-user"]);
    expect(top("stop the running build")).toEqual(["actions_cancel-workflow-run"]);
  });

  it("answers only what the filter accepts, up to the limit, and nothing for words no tool has", () => {
    expect(top("list repositories", 5, (i) => docs[i]!.name !== "repos_list-for-authenticated-user")).not.toContain(
      "repos_list-for-authenticated-user",
    );
    expect(top("list", 2)).toHaveLength(2);
    expect(top("zebra quantum")).toEqual([]);
    expect(top("the of and")).toEqual([]);
  });
});

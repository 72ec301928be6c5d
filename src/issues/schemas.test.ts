import { describe, expect, it } from "vitest";
import { issueListHref, parseIssueListParams } from "./schemas";

/** The issue list's URL state: parsing untrusted search params and building links. */
describe("issue list parameters", () => {
  it("keeps good values, replaces bad ones by defaults and names them", () => {
    const { params, invalid } = parseIssueListParams({
      status: "resolved",
      sort: "chaos",
      level: ["warning", "error"],
      project: "<script>",
      query: "  checkout  ",
      environment: "",
      after: "12_34",
    });
    expect(params).toEqual({
      status: "resolved",
      sort: "last_seen",
      period: "24h",
      level: "warning",
      query: "checkout",
      after: "12_34",
    });
    expect(invalid.sort()).toEqual(["project", "sort"]);
    expect(parseIssueListParams({ after: "1_2", before: "3_4" }).params.after).toBeUndefined();
    expect(parseIssueListParams({ query: "x".repeat(201) }).invalid).toEqual(["query"]);
  });

  it("builds short links that start over unless paging", () => {
    const p = parseIssueListParams({ project: "api", after: "5_6" }).params;
    expect(issueListHref("acme", p)).toBe("/acme/issues?project=api");
    expect(issueListHref("acme", p, { sort: "events" })).toBe(
      "/acme/issues?project=api&sort=events",
    );
    expect(issueListHref("acme", p, { after: "1_2" })).toBe("/acme/issues?project=api&after=1_2");
    expect(issueListHref("acme", parseIssueListParams({}).params)).toBe("/acme/issues");
  });
});

import { describe, expect, it } from "vitest";
import { DEFAULT_QUERY, issueListHref, parseIssueListParams } from "./schemas";

/** The issue list's URL state: parsing untrusted search params and building links. */
describe("issue list parameters", () => {
  it("keeps good values, replaces bad ones by defaults and names them", () => {
    const { params, invalid } = parseIssueListParams({
      sort: "chaos",
      project: "<script>",
      query: ["  is:resolved checkout  ", "second"],
      after: "12_34",
    });
    expect(params).toEqual({
      sort: "last_seen",
      period: "24h",
      query: "is:resolved checkout",
      after: "12_34",
    });
    expect(invalid.sort()).toEqual(["project", "sort"]);
    expect(parseIssueListParams({ after: "1_2", before: "3_4" }).params.after).toBeUndefined();
  });

  it("searches unresolved issues by default, everything for an empty query", () => {
    expect(parseIssueListParams({}).params.query).toBe(DEFAULT_QUERY);
    expect(parseIssueListParams({ query: "" }).params.query).toBe("");
    expect(parseIssueListParams({ query: "x".repeat(5000) }).params.query).toHaveLength(2000);
  });

  it("turns the old filter parameters into the terms they meant", () => {
    expect(
      parseIssueListParams({
        status: "resolved",
        level: "warning",
        environment: 'prod "eu"',
        release: "api@1.0",
      }).params.query,
    ).toBe('is:resolved level:warning environment:"prod \\"eu\\"" release:"api@1.0"');
    expect(parseIssueListParams({ status: "all" }).params.query).toBe("");
    expect(parseIssueListParams({ query: "TypeError", level: "error" }).params.query).toBe(
      "TypeError level:error",
    );
  });

  it("builds short links that start over unless paging", () => {
    const p = parseIssueListParams({ project: "api", after: "5_6" }).params;
    expect(issueListHref("acme", p)).toBe("/acme/issues?project=api");
    expect(issueListHref("acme", p, { sort: "events" })).toBe(
      "/acme/issues?project=api&sort=events",
    );
    expect(issueListHref("acme", p, { after: "1_2" })).toBe("/acme/issues?project=api&after=1_2");
    expect(issueListHref("acme", parseIssueListParams({}).params)).toBe("/acme/issues");
    expect(issueListHref("acme", p, { query: "" })).toBe("/acme/issues?query=&project=api");
    expect(issueListHref("acme", p, { query: "level:error x" })).toBe(
      "/acme/issues?query=level%3Aerror+x&project=api",
    );
  });
});

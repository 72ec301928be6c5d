import { describe, expect, it } from "vitest";
import { parseSearch } from "./parse";
import { applySuggestion, keySuggestions, quoteValue, termAt, valueSuggestions } from "./suggest";

/** What the search box offers while typing, and how taking a suggestion edits the query. */
describe("search suggestions", () => {
  it("finds the term around the caret, quotes included", () => {
    expect(termAt("is:unresolved lev", 17)).toMatchObject({ start: 14, end: 17, text: "lev" });
    expect(termAt('browser:"Chrome 1', 17)).toMatchObject({
      key: "browser",
      valuePrefix: "Chrome 1",
    });
    expect(termAt("!level:er x", 9)).toMatchObject({
      start: 0,
      end: 9,
      key: "level",
      negated: true,
      valuePrefix: "er",
    });
    expect(termAt("a ", 2)).toMatchObject({ start: 2, end: 2, text: "" });
  });

  it("offers keys by prefix, built-in first, then the stored tags", () => {
    const keys = keySuggestions(termAt("us", 2), ["user.region", "url"]).map((s) => s.insert);
    expect(keys).toEqual(["user.id:", "user.email:", "user.username:", "users:", "user.region:"]);
    expect(keySuggestions(termAt("!lev", 4), []).map((s) => s.insert)).toEqual(["!level:"]);
  });

  it("offers values: fixed ones and the server's, quoted when needed", () => {
    expect(valueSuggestions(termAt("is:un", 5)).map((s) => s.insert)).toEqual([
      "is:unresolved",
      "is:unassigned",
    ]);
    expect(valueSuggestions(termAt("release:", 8), ["api@1.0"]).map((s) => s.label)).toEqual([
      "latest",
      "api@1.0",
    ]);
    expect(
      valueSuggestions(termAt("browser:Ch", 10), ["Chrome 120", "Firefox"]).map((s) => s.insert),
    ).toEqual(['browser:"Chrome 120"']);
  });

  it("replaces the term and leaves a query that parses to the value", () => {
    const query = "is:unresolved browser:Ch level:error";
    const term = termAt(query, 24);
    const [s] = valueSuggestions(term, ['Chrome "beta" *']);
    const next = applySuggestion(query, term, s as NonNullable<typeof s>);
    expect(next.query).toBe('is:unresolved browser:"Chrome \\"beta\\" \\*" level:error');
    const parsed = parseSearch(next.query);
    expect(parsed.ok && parsed.query.filters[1]).toMatchObject({
      key: "browser",
      values: [{ parts: ['Chrome "beta" *'] }],
    });
    for (const v of ["", "a b", "[x]", ">1", "x,y", "<script>"]) {
      const p = parseSearch(`k:${quoteValue(v)}`);
      expect(p.ok, v).toBe(true);
    }
  });
});

import { describe, expect, it } from "vitest";
import { MAX_QUERY_LENGTH, MAX_TERMS } from "./keys";
import { describeSearchError, parseSearch } from "./parse";
import { parseCount, parseDate, parseDuration } from "./values";

/** Sentry's issue search language: every element of the grammar, and malformed queries. */
const ok = (q: string) => {
  const r = parseSearch(q);
  if (!r.ok) throw new Error(`${q}: ${describeSearchError(r.error)}`);
  return r.query;
};
const filters = (q: string) => ok(q).filters.map(({ position: _p, length: _l, ...f }) => f);
// biome-ignore lint/suspicious/noExplicitAny: a test reads whichever fields the kind has
const one = (q: string) => filters(q)[0] as any;
const fail = (q: string) => {
  const r = parseSearch(q);
  if (r.ok) throw new Error(`${q} parsed: ${JSON.stringify(r.query)}`);
  return r.error;
};

describe("search language", () => {
  it("reads is: with every status and state", () => {
    for (const v of [
      "unresolved",
      "resolved",
      "ignored",
      "regressed",
      "assigned",
      "unassigned",
      "bookmarked",
    ]) {
      expect(one(`is:${v}`)).toEqual({ kind: "is", negated: false, values: [v] });
    }
    expect(one("IS:Resolved")).toMatchObject({ kind: "tag", key: "IS" });
    expect(one("is:Resolved")).toMatchObject({ kind: "is", values: ["resolved"] });
    expect(one("!is:ignored")).toEqual({ kind: "is", negated: true, values: ["ignored"] });
    expect(one("is:[resolved, ignored]")).toMatchObject({ values: ["resolved", "ignored"] });
  });

  it("reads assigned:, bookmarks: and level:", () => {
    expect(one("assigned:me")).toEqual({ kind: "assigned", negated: false, values: ["me"] });
    expect(one("assigned:none").values).toEqual(["none"]);
    expect(one("assigned:Ann@Example.com").values).toEqual([{ email: "ann@example.com" }]);
    expect(one("assigned:[me, none]").values).toEqual(["me", "none"]);
    expect(one("bookmarks:me")).toEqual({ kind: "bookmarks", negated: false, values: ["me"] });
    expect(one("level:error")).toEqual({
      kind: "level",
      negated: false,
      values: [{ parts: ["error"] }],
    });
    expect(one("level:[warning,fatal]").values).toEqual([
      { parts: ["warning"] },
      { parts: ["fatal"] },
    ]);
    expect(one("level:err*").values).toEqual([{ parts: ["err", ""] }]);
  });

  it("reads release (and latest), environment, users, has: and tags", () => {
    expect(one("release:api@1.2.0")).toEqual({
      kind: "tag",
      key: "release",
      negated: false,
      values: [{ parts: ["api@1.2.0"] }],
    });
    expect(one("release:latest").values).toEqual(["latest"]);
    // Quoted, "latest" is a release named latest.
    expect(one('release:"latest"').values).toEqual([{ parts: ["latest"] }]);
    expect(one("environment:production")).toMatchObject({ kind: "tag", key: "environment" });
    expect(one("user.email:a@b.c")).toEqual({
      kind: "user",
      field: "email",
      negated: false,
      values: [{ parts: ["a@b.c"] }],
    });
    expect(one("user.id:42")).toMatchObject({ kind: "user", field: "id" });
    expect(one("user.username:jane")).toMatchObject({ kind: "user", field: "username" });
    expect(one("has:browser")).toEqual({ kind: "has", negated: false, key: "browser" });
    expect(one("!has:user.email")).toEqual({ kind: "has", negated: true, key: "user.email" });
    // An unknown key is a tag; tags[...] names a tag spelled like a built-in key.
    expect(one("browser.name:Chrome")).toEqual({
      kind: "tag",
      key: "browser.name",
      negated: false,
      values: [{ parts: ["Chrome"] }],
    });
    expect(one("tags[level]:high")).toMatchObject({ kind: "tag", key: "level" });
    expect(one('url:""')).toEqual({ kind: "tag_empty", key: "url", negated: false });
  });

  it("reads quoted values, negation, lists and wildcards", () => {
    expect(one('browser:"Chrome 120"').values).toEqual([{ parts: ["Chrome 120"] }]);
    expect(one('msg:"say \\"hi\\" \\\\ there"').values).toEqual([{ parts: ['say "hi" \\ there'] }]);
    expect(one("!environment:prod")).toMatchObject({ negated: true, key: "environment" });
    expect(one('environment:[prod, "staging eu", dev*]').values).toEqual([
      { parts: ["prod"] },
      { parts: ["staging eu"] },
      { parts: ["dev", ""] },
    ]);
    expect(one("url:*checkout*").values).toEqual([{ parts: ["", "checkout", ""] }]);
    expect(one('url:"a\\*b"').values).toEqual([{ parts: ["a*b"] }]);
    expect(one("url:a\\*b*").values).toEqual([{ parts: ["a*b", ""] }]);
  });

  it("reads comparisons of ages, times and counts", () => {
    expect(one("age:-24h")).toEqual({
      kind: "time",
      field: "first_seen",
      negated: false,
      value: { type: "relative", ms: 86_400_000, direction: "newer" },
    });
    expect(one("age:+7d").value).toEqual({
      type: "relative",
      ms: 7 * 86_400_000,
      direction: "older",
    });
    expect(one("age:<2w").value).toMatchObject({ direction: "newer" });
    expect(one("age:>30m").value).toMatchObject({ ms: 1_800_000, direction: "older" });
    expect(one("firstSeen:>2026-11-01")).toEqual({
      kind: "time",
      field: "first_seen",
      negated: false,
      value: { type: "absolute", op: ">", from: Date.UTC(2026, 10, 1), to: Date.UTC(2026, 10, 2) },
    });
    expect(one("lastSeen:-7d")).toMatchObject({ field: "last_seen", value: { type: "relative" } });
    expect(one("last_seen:<=2026-11-01T10:30:00Z").value).toMatchObject({
      op: "<=",
      from: Date.UTC(2026, 10, 1, 10, 30),
    });
    expect(one("firstSeen:2026-11-01").value).toMatchObject({ op: "=" });
    expect(one("timesSeen:>100")).toEqual({
      kind: "number",
      field: "times_seen",
      negated: false,
      op: ">",
      value: 100,
    });
    expect(one("users:>=10")).toMatchObject({ field: "user_count", op: ">=", value: 10 });
    expect(one("times_seen:1.5k")).toMatchObject({ op: "=", value: 1500 });
    expect(one("!timesSeen:<5")).toMatchObject({ negated: true, op: "<", value: 5 });
  });

  it("joins free text into one phrase, quoted or not, around filters", () => {
    expect(ok("TypeError  cannot read").text).toEqual({ parts: ["TypeError cannot read"] });
    expect(ok('is:unresolved "undefined (reading" level:error total').text).toEqual({
      parts: ["undefined (reading total"],
    });
    expect(ok("check*out").text).toEqual({ parts: ["check", "out"] });
    expect(ok("!foo").text).toEqual({ parts: ["!foo"] });
    expect(ok(":colon").text).toEqual({ parts: [":colon"] });
    expect(ok("").filters).toEqual([]);
    expect(ok("   ").text).toBeUndefined();
    expect(one("message:checkout")).toEqual({
      kind: "message",
      negated: false,
      value: { parts: ["checkout"] },
    });
  });

  it("records where each term starts", () => {
    const q = ok('is:resolved  !browser:"a b" x');
    expect(q.filters.map((f) => [f.position, f.length])).toEqual([
      [0, 11],
      [13, 14],
    ]);
  });

  it("refuses malformed queries with the position of the problem", () => {
    expect(fail('browser:"Chrome')).toMatchObject({
      position: 8,
      message: expect.stringMatching(/Unterminated quote/),
    });
    expect(fail('is:unresolved "free text')).toMatchObject({ position: 14 });
    expect(fail("release:")).toMatchObject({ position: 7, message: "release: needs a value" });
    expect(fail("release: x")).toMatchObject({ position: 7 });
    expect(fail("is:open")).toMatchObject({
      position: 3,
      length: 4,
      message: expect.stringMatching(/^is: takes unresolved/),
    });
    expect(fail("level:critical")).toMatchObject({ position: 6 });
    expect(fail("assigned:bob")).toMatchObject({ position: 9 });
    expect(fail("bookmarks:none")).toMatchObject({ position: 10 });
    expect(fail("env:[a, b")).toMatchObject({
      position: 4,
      message: expect.stringMatching(/no closing/),
    });
    expect(fail("env:[]")).toMatchObject({ message: expect.stringMatching(/empty/) });
    expect(fail("env:[a b]")).toMatchObject({ position: 7 });
    expect(fail("env:[a,,b]")).toMatchObject({ position: 7 });
    expect(fail('env:"a"b')).toMatchObject({ position: 7 });
    expect(fail("age:24h")).toMatchObject({ position: 4 });
    expect(fail("age:-24y")).toMatchObject({ position: 4 });
    expect(fail("age:>-1d")).toMatchObject({ position: 4 });
    expect(fail("firstSeen:>2026-13-01")).toMatchObject({ position: 10, length: 11 });
    expect(fail("firstSeen:2026-02-30")).toMatchObject({ position: 10 });
    expect(fail("lastSeen:yesterday")).toMatchObject({ position: 9 });
    expect(fail("timesSeen:>lots")).toMatchObject({ position: 10 });
    expect(fail("users:[1, 2]")).toMatchObject({ message: expect.stringMatching(/not a list/) });
    expect(fail("release:>1.0")).toMatchObject({ message: expect.stringMatching(/comparison/) });
    expect(fail("has:a*")).toMatchObject({ position: 4 });
    expect(fail("is:resolv*")).toMatchObject({ message: expect.stringMatching(/wildcards/) });
    expect(fail(`${"k".repeat(33)}:v`)).toMatchObject({ position: 0, length: 33 });
    expect(fail(`v:${"x".repeat(201)}`)).toMatchObject({ position: 2 });
    expect(describeSearchError(fail("release:"))).toBe("release: needs a value (at character 8)");
  });

  it("bounds queries in length and terms", () => {
    expect(fail("a".repeat(MAX_QUERY_LENGTH + 1))).toMatchObject({
      position: MAX_QUERY_LENGTH,
      length: 1,
    });
    expect(parseSearch("a".repeat(MAX_QUERY_LENGTH)).ok).toBe(true);
    const terms = Array.from({ length: MAX_TERMS }, (_, i) => `t${i}:v`);
    expect(parseSearch(terms.join(" ")).ok).toBe(true);
    const over = `${terms.join(" ")} extra`;
    expect(fail(over)).toMatchObject({
      position: over.indexOf("extra"),
      message: expect.stringMatching(/at most 20 terms/),
    });
    const list = `env:[${Array.from({ length: 51 }, (_, i) => `v${i}`).join(",")}]`;
    expect(fail(list)).toMatchObject({ message: expect.stringMatching(/at most 50 values/) });
  });

  it("keeps markup in values as plain text", () => {
    expect(one('browser:"<script>alert(1)</script>"').values).toEqual([
      { parts: ["<script>alert(1)</script>"] },
    ]);
    expect(ok("javascript:alert(1)").filters[0]).toMatchObject({ kind: "tag", key: "javascript" });
  });
});

describe("values", () => {
  it("reads durations, dates and counts", () => {
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("2w")).toBe(14 * 86_400_000);
    expect(parseDuration("0h")).toBeUndefined();
    expect(parseDuration("99999999d")).toBeUndefined();
    expect(parseDate("2026-11-01T10:30+02:00")).toEqual({
      from: Date.UTC(2026, 10, 1, 8, 30),
      to: Date.UTC(2026, 10, 1, 8, 31),
    });
    expect(parseDate("2026-11-01 10:30:15.5Z")).toMatchObject({
      from: Date.UTC(2026, 10, 1, 10, 30, 15, 500),
    });
    expect(parseDate("2026-11-31")).toBeUndefined();
    expect(parseDate("11/01/2026")).toBeUndefined();
    expect(parseCount("2m")).toBe(2_000_000);
    expect(parseCount("1e3")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import {
  bucketFor,
  bucketStarts,
  hrefWithFilters,
  PageFilterError,
  parsePageFilters,
  parsePageFiltersStrict,
} from "./page-filters";

const projects = [
  { id: 1, slug: "web" },
  { id: 2, slug: "api" },
];
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

describe("page filters", () => {
  it("defaults to every project, any environment, the last 24 hours", () => {
    const { filters, invalid } = parsePageFilters({}, projects, NOW);
    expect(invalid).toEqual([]);
    expect(filters).toMatchObject({
      projectIds: [1, 2],
      projectSlugs: [],
      environment: null,
      range: "24h",
      fromMs: NOW - 86_400_000,
      toMs: NOW,
      bucketMs: 30 * 60_000,
    });
  });

  it("reads projects, environment and a preset", () => {
    const { filters } = parsePageFilters(
      new URLSearchParams("project=api&environment=prod&range=1h"),
      projects,
      NOW,
    );
    expect(filters).toMatchObject({ projectIds: [2], environment: "prod", range: "1h" });
    expect(filters.bucketMs).toBe(60_000);
    expect(hrefWithFilters("/acme/traces", filters, { q: "db" })).toBe(
      "/acme/traces?project=api&environment=prod&range=1h&q=db",
    );
  });

  it("a custom range from start and end (zoneless times are UTC)", () => {
    const { filters } = parsePageFilters(
      { start: "2026-11-25T10:00", end: "2026-11-25T11:00:00Z" },
      projects,
      NOW,
    );
    expect(filters).toMatchObject({
      range: "custom",
      fromMs: Date.UTC(2026, 10, 25, 10),
      toMs: Date.UTC(2026, 10, 25, 11),
    });
    // A preset chosen in the selector wins over the start and end left in the form.
    expect(
      parsePageFilters(
        { range: "7d", start: "2026-11-25T10:00", end: "2026-11-25T11:00" },
        projects,
        NOW,
      ).filters.range,
    ).toBe("7d");
  });

  it("a bad value falls back and is named; the strict parser throws it as a 400", () => {
    const { filters, invalid } = parsePageFilters(
      { project: "nope", range: "3y", start: "tomorrow", end: "x" },
      projects,
      NOW,
    );
    expect(invalid).toEqual(["project", "range", "start"]);
    expect(filters).toMatchObject({ projectIds: [1, 2], range: "24h", toMs: NOW });
    expect(() => parsePageFiltersStrict({ range: "3y" }, projects, NOW)).toThrow(PageFilterError);
    try {
      parsePageFiltersStrict({ end: "2026-01-01", start: "2026-02-01" }, projects, NOW);
    } catch (e) {
      expect((e as PageFilterError).field).toBe("end");
      expect((e as PageFilterError).status).toBe(400);
    }
  });

  it("buckets stay at or under 120 per range and are aligned", () => {
    for (const days of [1 / 24, 1, 7, 14, 30, 90]) {
      const span = days * 86_400_000;
      expect(span / bucketFor(span)).toBeLessThanOrEqual(120);
    }
    const starts = bucketStarts({ fromMs: 90_000, toMs: 300_000, bucketMs: 60_000 });
    expect(starts).toEqual([60_000, 120_000, 180_000, 240_000]);
  });
});

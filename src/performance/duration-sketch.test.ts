import { describe, expect, it } from "vitest";
import { DurationSketch, encodeSketch, RELATIVE_ACCURACY } from "./duration-sketch";
import { percentile } from "./stats";

/** Durations from 1 µs to minutes, most around 100 ms (log-normal), plus exact zeros. */
function durations(n: number, seed: number): number[] {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return (x + 1) / (2 ** 31 + 1);
  };
  return Array.from({ length: n }, (_, i) => {
    if (i % 997 === 0) return 0;
    const z = Math.sqrt(-2 * Math.log(next())) * Math.cos(2 * Math.PI * next());
    return Math.round(Math.exp(Math.log(100) + 2.5 * z) * 1000) / 1000;
  });
}

describe("duration sketch", () => {
  const values = durations(20_000, 42);
  const sorted = [...values].sort((a, b) => a - b);
  const ps = [0, 0.01, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1];

  it("reads every quantile within 1 % of percentile_cont over the same values", () => {
    const sketch = new DurationSketch();
    for (const v of values) sketch.add(v);
    const got = sketch.quantiles(ps);
    ps.forEach((p, i) => {
      const exact = percentile(sorted, p) as number;
      expect(Math.abs((got[i] as number) - exact)).toBeLessThanOrEqual(
        RELATIVE_ACCURACY * exact + 1e-3,
      );
    });
    expect(got[0]).toBe(sorted[0]);
    expect(got.at(-1)).toBe(sorted.at(-1));
  });

  it("holds 1 % on small populations, where quantiles share ranks (p95 and p99 of 12)", () => {
    // The case one CI run caught at 1.08 %: 12 transactions, p95 and p99 both between ranks
    // 10 and 11 with a wide gap between them; the sketch once read p99's lower rank as 11.
    const twelve = [31, 32, 33, 34, 35, 36, 37, 38, 38.5, 39, 40, 60];
    const sketch = new DurationSketch();
    for (const v of twelve) sketch.add(v);
    const small = [0.5, 0.75, 0.95, 0.99];
    sketch.quantiles(small).forEach((q, i) => {
      const exact = percentile(twelve, small[i] as number) as number;
      expect(Math.abs((q as number) - exact)).toBeLessThanOrEqual(RELATIVE_ACCURACY * exact);
    });
    // And any small population, read in any order of quantiles, split into a stored part
    // and single durations as a page merges rollup rows and edge spans.
    const pool = durations(4_000, 7).filter((v) => v > 0.01);
    let at = 0;
    for (let trial = 0; trial < 400; trial++) {
      const n = 1 + (trial % 25);
      const xs = pool.slice(at, at + n);
      at = (at + n) % (pool.length - 30);
      const merged = new DurationSketch();
      const stored = new DurationSketch();
      xs.forEach((v, j) => {
        (j % 2 === 0 ? merged : stored).add(v);
      });
      if (stored.count > 0) {
        const counts = new Map<number, number>();
        stored.counts.forEach((c, slot) => {
          if (c > 0) counts.set(slot, c);
        });
        merged.addEncoded(encodeSketch(counts), stored.min, stored.max);
      }
      const sortedXs = [...xs].sort((a, b) => a - b);
      const order = trial % 2 === 0 ? ps : [...ps].reverse();
      merged.quantiles(order).forEach((q, i) => {
        const exact = percentile(sortedXs, order[i] as number) as number;
        expect(Math.abs((q as number) - exact)).toBeLessThanOrEqual(
          RELATIVE_ACCURACY * exact + 1e-9,
        );
      });
    }
  });

  it("merges stored halves into what one sketch of all the values holds", () => {
    const whole = new DurationSketch();
    for (const v of values) whole.add(v);
    const merged = new DurationSketch();
    for (const half of [values.slice(0, 7_000), values.slice(7_000)]) {
      const counts = new Map<number, number>();
      const part = new DurationSketch();
      for (const v of half) part.add(v);
      part.counts.forEach((c, slot) => {
        if (c > 0) counts.set(slot, c);
      });
      merged.addEncoded(encodeSketch(counts), part.min, part.max);
    }
    expect(merged.count).toBe(values.length);
    expect(Array.from(merged.counts)).toEqual(Array.from(whole.counts));
    expect(merged.quantiles(ps)).toEqual(whole.quantiles(ps));
    // Compact: a few bytes a bucket, whatever the number of values.
    const counts = new Map<number, number>();
    whole.counts.forEach((c, slot) => {
      if (c > 0) counts.set(slot, c);
    });
    expect(encodeSketch(counts).length).toBeLessThan(4 * counts.size);
  });

  it("puts every duration in a histogram bin, from the fastest to the slowest", () => {
    const sketch = new DurationSketch();
    for (const v of values) sketch.add(v);
    const bins = sketch.histogram(20);
    expect(bins).toHaveLength(20);
    expect(bins.reduce((n, b) => n + b.count, 0)).toBe(values.length);
    expect(bins[0]?.from).toBe(sorted[0]);
    expect(bins.at(-1)?.to).toBeCloseTo(sorted.at(-1) as number, 6);
    expect(new DurationSketch().quantiles([0.5])).toEqual([null]);
  });
});

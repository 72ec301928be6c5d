/**
 * A mergeable sketch of durations (DDSketch's log-scale buckets): a duration d > 0 falls in
 * bucket i = ceil(log_γ d) with γ = (1 + α) / (1 − α), and bucket i stands for
 * 2γ^i / (γ + 1), which is within α of every duration in it. With α = 1 %, any quantile read
 * back is within 1 % of the exact value (plus up to 1 µs near 0), and two sketches merge by
 * adding their bucket counts — so per-minute and per-hour rollups add up to any range.
 *
 * Why this and not a t-digest: merging is exact (a sum of counts), so the result does not
 * depend on the order batches arrived in, and SQLite and PostgreSQL agree to the bit.
 *
 * Stored form: for each non-empty bucket in ascending order, the gap from the previous one
 * and its count, both as unsigned LEB128 varints — 2–3 bytes a bucket.
 */
export const RELATIVE_ACCURACY = 0.01;
const GAMMA = (1 + RELATIVE_ACCURACY) / (1 - RELATIVE_ACCURACY);
const LOG_GAMMA = Math.log(GAMMA);
/** Durations under this (ms) count as 0: spans are timed to the microsecond. */
export const MIN_DURATION_MS = 0.001;
/** Buckets from 1 µs (index −341) to ~51 days (1,100); slot 0 holds zero durations. */
const MIN_INDEX = Math.floor(Math.log(MIN_DURATION_MS) / LOG_GAMMA);
const MAX_INDEX = 1100;
export const SLOTS = MAX_INDEX - MIN_INDEX + 1;

function slotOf(durationMs: number): number {
  if (!(durationMs >= MIN_DURATION_MS)) return 0;
  const i = Math.ceil(Math.log(durationMs) / LOG_GAMMA);
  return Math.min(Math.max(i, MIN_INDEX + 1), MAX_INDEX) - MIN_INDEX;
}

/** The value a slot stands for (ms). */
export function slotValue(slot: number): number {
  if (slot === 0) return 0;
  return (2 * GAMMA ** (slot + MIN_INDEX)) / (GAMMA + 1);
}

export class DurationSketch {
  /** Counts by slot, dense (12 KB): a page merges thousands of rows into a few of these. */
  readonly counts = new Float64Array(SLOTS);
  count = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;

  add(durationMs: number, times = 1): void {
    const slot = slotOf(durationMs);
    this.counts[slot] = (this.counts[slot] as number) + times;
    this.count += times;
    if (durationMs < this.min) this.min = durationMs;
    if (durationMs > this.max) this.max = durationMs;
  }

  merge(other: DurationSketch): void {
    const a = this.counts;
    const b = other.counts;
    for (let i = 0; i < SLOTS; i++) if (b[i] !== 0) a[i] = (a[i] as number) + (b[i] as number);
    this.count += other.count;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
  }

  /**
   * Adds a stored sketch (`encodeSketch`'s bytes) with its row's count, min and max (the bytes
   * hold only the buckets).
   */
  addEncoded(bytes: Uint8Array, min: number, max: number): void {
    const counts = this.counts;
    this.count += decodeSketch(bytes, (slot, c) => {
      counts[slot] = (counts[slot] as number) + c;
    });
    if (min < this.min) this.min = min;
    if (max > this.max) this.max = max;
  }

  /**
   * Quantiles as PostgreSQL's percentile_cont reads them (linear between the two nearest
   * ranks), each rank's value taken from its bucket and kept within [min, max]: every
   * result is within RELATIVE_ACCURACY of the exact one.
   */
  quantiles(ps: number[]): (number | null)[] {
    if (this.count === 0) return ps.map(() => null);
    const positions = ps.map((p) => p * (this.count - 1));
    // Two quantiles can share a pair of ranks (p95 and p99 of 12 values both sit between
    // ranks 10 and 11), so the ranks are read as one ascending, de-duplicated list.
    const ranks = [...new Set(positions.flatMap((idx) => [Math.floor(idx), Math.ceil(idx)]))].sort(
      (a, b) => a - b,
    );
    const atRank = this.valuesAtRanks(ranks);
    return positions.map((idx) => {
      const a = atRank.get(Math.floor(idx)) as number;
      const b = atRank.get(Math.ceil(idx)) as number;
      return a + (b - a) * (idx - Math.floor(idx));
    });
  }

  /** The value of each 0-based rank (`ranks` strictly ascending), clamped to [min, max]. */
  private valuesAtRanks(ranks: number[]): Map<number, number> {
    const out = new Map<number, number>();
    const counts = this.counts;
    let seen = 0;
    let k = 0;
    for (let slot = 0; slot < SLOTS && k < ranks.length; slot++) {
      const c = counts[slot] as number;
      if (c === 0) continue;
      seen += c;
      while (k < ranks.length && (ranks[k] as number) < seen) {
        out.set(ranks[k] as number, this.clamp(slotValue(slot)));
        k++;
      }
    }
    for (; k < ranks.length; k++) out.set(ranks[k] as number, this.max);
    return out;
  }

  private clamp(v: number): number {
    return Math.min(Math.max(v, this.min), this.max);
  }

  /**
   * `bins` equal-width bins from min to max; each bucket's durations go to the bin of the
   * value it stands for, so a duration lands in a bin that holds a value within 1 % of it.
   */
  histogram(bins: number): { from: number; to: number; count: number }[] {
    if (this.count === 0) return [];
    const { min, max } = this;
    const n = max > min ? bins : 1;
    const width = max > min ? (max - min) / bins : 1;
    const out = Array.from({ length: n }, (_, i) => ({
      from: min + i * width,
      to: min + (i + 1) * width,
      count: 0,
    }));
    const counts = this.counts;
    for (let slot = 0; slot < SLOTS; slot++) {
      const c = counts[slot] as number;
      if (c === 0) continue;
      const v = this.clamp(slotValue(slot));
      const i = Math.min(Math.floor((v - min) / width), n - 1);
      (out[i] as { count: number }).count += c;
    }
    return out;
  }
}

/** Calls `each(slot, count)` for every bucket of stored bytes; returns the total count. */
export function decodeSketch(
  bytes: Uint8Array,
  each: (slot: number, count: number) => void,
): number {
  let slot = 0;
  let pos = 0;
  let total = 0;
  const varint = () => {
    let v = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[pos++] as number;
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80 && pos < bytes.length);
    return v;
  };
  while (pos < bytes.length) {
    slot += varint();
    const c = varint();
    // Bytes from a later, wider layout: what this one cannot place is left out.
    if (slot < SLOTS) each(slot, c);
    total += c;
  }
  return total;
}

/** Stored bytes of `counts` (slot → count). */
export function encodeSketch(counts: Map<number, number>): Buffer {
  const out: number[] = [];
  const push = (v: number) => {
    while (v >= 0x80) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
  };
  let previous = 0;
  for (const slot of [...counts.keys()].sort((a, b) => a - b)) {
    push(slot - previous);
    push(counts.get(slot) as number);
    previous = slot;
  }
  return Buffer.from(out);
}

/** Adds one duration to sparse counts (the store stage's per-batch form). */
export function addDuration(counts: Map<number, number>, durationMs: number): void {
  const slot = slotOf(durationMs);
  counts.set(slot, (counts.get(slot) ?? 0) + 1);
}

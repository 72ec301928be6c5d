/**
 * A least-recently-used cache bounded by the bytes its values stand for, not their count:
 * one 10 MB source map costs as much room as a thousand small ones. Map's insertion order
 * is the recency order (a hit moves its key to the end).
 */
export class ByteLru<V> {
  private entries = new Map<string, { value: V; bytes: number; expires: number }>();
  private used = 0;

  constructor(readonly budget: number) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.used;
  }

  get(key: string, now = Date.now()): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if (e.expires <= now) {
      this.used -= e.bytes;
      return undefined;
    }
    this.entries.set(key, e);
    return e.value;
  }

  /**
   * A value larger than the whole budget is kept alone, everything else evicted: parsing it
   * again for every event would cost more than the memory (parse-map.ts bounds its size).
   */
  set(key: string, value: V, bytes: number, ttlMs = Number.POSITIVE_INFINITY): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.used -= old.bytes;
    }
    this.entries.set(key, { value, bytes, expires: Date.now() + ttlMs });
    this.used += bytes;
    for (const [k, e] of this.entries) {
      if (this.used <= this.budget || k === key) break;
      this.entries.delete(k);
      this.used -= e.bytes;
    }
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }
}

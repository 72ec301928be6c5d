import type { KeyInfo } from "./auth";

/**
 * Per-key rate limits: at most `count` events per `window` seconds, counted in fixed windows
 * aligned to the clock (so every process agrees where a window ends). Counted in memory per
 * process: behind a load balancer with N ingest processes a key gets up to N × count.
 */
export class KeyRateLimiter {
  private windows = new Map<number, { start: number; used: number }>();

  /**
   * Takes `quantity` events from the key's window. Returns 0 when they fit, else the seconds
   * until the window ends (what the SDK is told to wait).
   */
  take(key: KeyInfo, quantity: number, now = Date.now()): number {
    const limit = key.rateLimit;
    if (!limit || quantity <= 0) return 0;
    const windowMs = limit.window * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    let state = this.windows.get(key.keyId);
    if (!state || state.start !== start) {
      state = { start, used: 0 };
      this.windows.set(key.keyId, state);
    }
    if (state.used + quantity > limit.count)
      return Math.max(1, Math.ceil((start + windowMs - now) / 1000));
    state.used += quantity;
    return 0;
  }
}

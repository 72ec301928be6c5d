import { MAX_HEADER_LINE_BYTES } from "./frame";
import { itemTypeInfo, LIMITS } from "./item-types";

/**
 * Checks the structure of an envelope while it is still being decompressed, so that a
 * compressed body which cannot be a valid envelope (a gzip bomb of zeros, a payload far over
 * its item's limit) is refused after a few KiB instead of after 100 MiB of output.
 * It only bounds work; `frameEnvelope` remains the one parser that decides validity.
 *
 * An item over its limit is not refused here: the accept stage drops it and keeps the rest
 * (item-limits.ts). Such items may only add up to OVERSIZED_BUDGET, as much as an
 * uncompressed request could carry at all; past that the body is treated as a bomb.
 */
export const OVERSIZED_BUDGET = LIMITS.requestBytes;

export class EnvelopeGuard {
  private state: "envelope-header" | "item-header" | "payload-sized" | "payload-line" =
    "envelope-header";
  private line: Buffer[] = [];
  private lineBytes = 0;
  private remaining = 0;
  private payloadLimit = 0;
  private payloadBytes = 0;
  private itemType = "";
  /** Bytes of items over their limit so far. */
  private oversized = 0;

  /** Returns a problem description once the stream can no longer be a valid envelope. */
  push(chunk: Buffer): string | undefined {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.state === "payload-sized") {
        const take = Math.min(this.remaining, chunk.length - pos);
        this.remaining -= take;
        pos += take;
        if (this.remaining === 0) {
          // The optional newline after a sized payload is consumed as an empty header line.
          this.state = "item-header";
        }
        continue;
      }
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(pos, end);
      pos = nl === -1 ? chunk.length : nl + 1;

      if (this.state === "payload-line") {
        const before = this.payloadBytes;
        this.payloadBytes += piece.length;
        if (this.payloadBytes > this.payloadLimit) {
          // Once over the limit, the whole item counts against the budget.
          this.oversized += before > this.payloadLimit ? piece.length : this.payloadBytes;
          if (this.oversized > OVERSIZED_BUDGET) return this.overBudget(this.payloadLimit);
        }
        if (nl !== -1) this.state = "item-header";
        continue;
      }

      this.lineBytes += piece.length;
      if (this.lineBytes > MAX_HEADER_LINE_BYTES) {
        return this.state === "envelope-header"
          ? "envelope header line is longer than 64 KiB"
          : "item header line is longer than 64 KiB";
      }
      this.line.push(piece);
      if (nl === -1) continue;
      const problem = this.endLine(Buffer.concat(this.line));
      this.line = [];
      this.lineBytes = 0;
      if (problem) return problem;
    }
    return undefined;
  }

  private endLine(line: Buffer): string | undefined {
    if (this.state === "envelope-header") {
      this.state = "item-header";
      return undefined;
    }
    if (line.length === 0 || line.toString("latin1").trim() === "") return undefined;
    let header: { type?: unknown; length?: unknown };
    try {
      header = JSON.parse(line.toString("utf8"));
    } catch {
      return "item header is not a JSON object";
    }
    if (header === null || typeof header !== "object") return "item header is not a JSON object";
    this.itemType = typeof header.type === "string" ? header.type : "";
    const limit = itemTypeInfo(this.itemType)?.maxBytes ?? 100 * 1024 * 1024;
    if (typeof header.length === "number" && header.length >= 0) {
      if (header.length > limit) {
        this.oversized += header.length;
        if (this.oversized > OVERSIZED_BUDGET) return this.overBudget(limit, header.length);
      }
      this.remaining = header.length;
      this.state = this.remaining > 0 ? "payload-sized" : "item-header";
    } else {
      this.payloadLimit = limit;
      this.payloadBytes = 0;
      this.state = "payload-line";
    }
    return undefined;
  }

  private overBudget(limit: number, declared?: number): string {
    const size = declared === undefined ? "is larger than" : `declares ${declared} bytes, over`;
    return `item of type "${this.itemType}" ${size} its limit of ${limit} bytes, and items over their limits pass ${OVERSIZED_BUDGET} bytes in this compressed body`;
  }
}

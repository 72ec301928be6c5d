import { MAX_HEADER_LINE_BYTES } from "./frame";
import { itemTypeInfo } from "./item-types";

/**
 * Checks the structure of an envelope while it is still being decompressed, so that a
 * compressed body which cannot be a valid envelope (a gzip bomb of zeros, a payload far over
 * its item's limit) is refused after a few KiB instead of after 100 MiB of output.
 * It only bounds work; `frameEnvelope` remains the one parser that decides validity.
 */
export class EnvelopeGuard {
  private state: "envelope-header" | "item-header" | "payload-sized" | "payload-line" =
    "envelope-header";
  private line: Buffer[] = [];
  private lineBytes = 0;
  private remaining = 0;
  private payloadLimit = 0;
  private payloadBytes = 0;
  private itemType = "";

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
        this.payloadBytes += piece.length;
        if (this.payloadBytes > this.payloadLimit) {
          return `item of type "${this.itemType}" is larger than its limit of ${this.payloadLimit} bytes`;
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
        return `item of type "${this.itemType}" declares ${header.length} bytes, over its limit of ${limit}`;
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
}

import { describe, expect, it } from "vitest";
import { buildEnvelope, realNodeErrorEvent, variant } from "../../../tests/helpers/envelopes";
import {
  BLOCK_BYTES,
  decodeEventBlock,
  decodeStoredEvent,
  encodeBlockSlice,
  LARGE_EVENT,
} from "../../events/payload";
import type { QueuedEnvelope } from "../queue/queue";
import { normalizeEvent } from "./normalize";
import { mergeTransferred, processEnvelopes, toTransferred } from "./process-envelopes";

/**
 * The process stage packs a batch's events into compressed blocks, per project and in
 * order; events past LARGE_EVENT are compressed on their own. Every event reads back, through
 * its block, as exactly what ingest normalized.
 */
const base = realNodeErrorEvent();
// When the events are sent (variant() stamps them now): ingest corrects a timestamp that is
// far from the time of receipt (clock/clock-drift.ts), which is not what this test is about.
const RECEIVED_AT = Date.now();

function queued(id: number, projectId: number, payload: unknown): QueuedEnvelope {
  return {
    id,
    projectId,
    keyId: 1,
    receivedAt: RECEIVED_AT + id,
    kind: "envelope",
    body: buildEnvelope([{ type: "event", payload }]),
  };
}

describe("event blocks", () => {
  it("packs each project's events into blocks of at most BLOCK_BYTES, the large ones apart", () => {
    const raws: { projectId: number; event: ReturnType<typeof variant> }[] = [];
    for (let i = 0; i < 120; i++) {
      const event = variant(base, { value: `block test ${i}` });
      // Every tenth event is large enough to be compressed on its own.
      if (i % 10 === 9) event.extra = { padding: "y".repeat(LARGE_EVENT) };
      raws.push({ projectId: i % 3 === 0 ? 2 : 1, event });
    }
    const batch = processEnvelopes(raws.map((r, i) => queued(i + 1, r.projectId, r.event)));
    expect(batch.events).toHaveLength(120);

    const decoded = new Map(batch.blocks.map((b, i) => [i, decodeEventBlock(b.payload)]));
    for (const block of decoded.values()) expect(block.length).toBeLessThanOrEqual(BLOCK_BYTES);
    // ~5 KB events, 108 of them small, over two projects: several blocks, not one per event.
    expect(batch.blocks.length).toBeGreaterThan(4);
    expect(batch.blocks.length).toBeLessThan(20);

    batch.events.forEach((stored, i) => {
      const { projectId, event } = raws[i] as (typeof raws)[number];
      expect(stored.projectId).toBe(projectId);
      if (i % 10 === 9) {
        expect(stored.slice).toBeUndefined();
        expect(stored.payload).toBeDefined();
      } else {
        const slice = stored.slice as NonNullable<typeof stored.slice>;
        expect(batch.blocks[slice.block]?.projectId).toBe(projectId);
        expect(batch.blocks[slice.block]?.receivedAt).toBeGreaterThanOrEqual(stored.receivedAt);
      }
      // As the store stage will write it: the slice names the block's id (here its index).
      const payload =
        stored.payload ??
        encodeBlockSlice(
          stored.slice?.block as number,
          stored.slice?.offset as number,
          stored.slice?.length as number,
        );
      const read = decodeStoredEvent(
        { payload, event_id: stored.event.event_id, received_at: stored.receivedAt },
        decoded,
      );
      expect(read).toEqual(normalizeEvent(event, { receivedAt: stored.receivedAt }));
    });
  });

  it("keeps slices pointing at the right blocks when processor threads' shares are merged", () => {
    const first = processEnvelopes([queued(1, 1, variant(base)), queued(2, 1, variant(base))]);
    const second = processEnvelopes([queued(3, 1, variant(base))]);
    // Through structuredClone, as between threads.
    mergeTransferred(first, structuredClone(toTransferred(second)));
    expect(first.blocks).toHaveLength(2);
    const last = first.events[2];
    expect(last?.slice?.block).toBe(1);
    expect(Buffer.isBuffer(first.blocks[1]?.payload)).toBe(true);
  });

  it("refuses to read a slice whose block is missing", () => {
    expect(() =>
      decodeStoredEvent({
        payload: encodeBlockSlice(42, 0, 10),
        event_id: "a".repeat(32),
        received_at: RECEIVED_AT,
      }),
    ).toThrow(/block is missing/);
  });
});

import type { Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { StorableLog } from "../process/logs";
import type { LogContainer, StorableBatch } from "../process/process-envelopes";

/**
 * Logs carry no id, so an SDK that retries an envelope had its logs stored twice. Each container is noted by a hash of its bytes in `log_containers`
 * (031-ingest-once.ts) in the batch's transaction; one seen before, or twice in the batch, is
 * not stored again and its logs count as `filtered` / `duplicate` instead of `accepted`.
 * Concurrent batches with the same container: the unique key makes the second insert wait
 * for the first and return nothing.
 */
const CHUNK = 500;

export async function logsNotSeenBefore(
  batch: StorableBatch,
  trx: Transaction<Database>,
): Promise<StorableLog[]> {
  const containers = batch.logContainers;
  if (containers.length === 0) return batch.logs;
  const key = (c: { projectId: number; hash: string }) => `${c.projectId}:${c.hash}`;
  const inserted = new Set<string>();
  for (let i = 0; i < containers.length; i += CHUNK) {
    const rows = await trx
      .insertInto("log_containers")
      .values(
        containers.slice(i, i + CHUNK).map((c) => ({
          project_id: c.projectId,
          hash: c.hash,
          received_at: c.receivedAt,
        })),
      )
      .onConflict((oc) => oc.columns(["project_id", "hash"]).doNothing())
      .returning(["project_id", "hash"])
      .execute();
    for (const r of rows) inserted.add(key({ projectId: Number(r.project_id), hash: r.hash }));
  }
  const repeated: LogContainer[] = [];
  const kept = new Set<string>();
  for (const c of containers) {
    const k = key(c);
    if (inserted.has(k) && !kept.has(k)) kept.add(k);
    else repeated.push(c);
  }
  if (repeated.length === 0) return batch.logs;
  const skip = new Set<number>();
  for (const c of repeated) {
    for (let i = c.start; i < c.start + c.count; i++) skip.add(i);
    batch.outcomes.reclassify(
      c.projectId,
      c.receivedAt,
      "log_item",
      { outcome: "accepted", reason: "" },
      { outcome: "filtered", reason: "duplicate" },
      c.count,
    );
  }
  return batch.logs.filter((_, i) => !skip.has(i));
}

import path from "node:path";
import type { Db } from "../../db/connection";
import { env } from "../../env";
import { openQueueWriter } from "../queue/queue";
import { KeyCache } from "./auth";
import { BackpressureGuard } from "./backpressure";
import type { AcceptContext } from "./handle-ingest";
import { AcceptOutcomes } from "./outcomes";
import { KeyRateLimiter } from "./rate-limit";

/** Everything the accept stage needs in a process that ingests, started and stopped together. */
export interface IngestService {
  context: AcceptContext;
  stop(): Promise<void>;
}

export async function startIngest(db: Db): Promise<IngestService> {
  const config = env();
  const queue = await openQueueWriter(db);
  const pressure = new BackpressureGuard(
    {
      maxEnvelopes: config.FAULTLINE_QUEUE_MAX_ENVELOPES,
      maxBytes: config.FAULTLINE_QUEUE_MAX_BYTES,
      minFreeDiskBytes: config.FAULTLINE_MIN_FREE_DISK_BYTES,
      dataDir: db.sqlitePath
        ? path.dirname(db.sqlitePath)
        : path.resolve(config.FAULTLINE_DATA_DIR),
    },
    () => queue.backlog(),
  );
  pressure.start();
  const outcomes = new AcceptOutcomes(queue);
  outcomes.start();
  return {
    context: { keys: new KeyCache(db), queue, limiter: new KeyRateLimiter(), pressure, outcomes },
    async stop() {
      pressure.stop();
      await outcomes.stop();
      await queue.close();
    },
  };
}

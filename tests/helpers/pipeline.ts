import { bootstrap } from "../../src/db/bootstrap";
import type { Db } from "../../src/db/connection";
import { frameEnvelope } from "../../src/ingest/accept/frame";
import {
  openQueueReader,
  openQueueWriter,
  type QueueReader,
  type QueueWriter,
} from "../../src/ingest/queue/queue";
import { IngestWorker } from "../../src/ingest/workers/ingest-worker";
import { ProjectSettingsCache } from "../../src/ingest/workers/project-settings-cache";
import type { TestDatabase } from "./databases";
import { fixture } from "./fixtures";

/**
 * The ingest pipeline on a test database without a server: envelopes go into the real queue
 * and a real worker processes them, so a test controls when they are received and processed.
 */
export interface Pipeline {
  database: TestDatabase;
  db: Db;
  projectId: number;
  worker: IngestWorker;
  send(body: Buffer, receivedAt?: number): Promise<void>;
  /** A captured envelope, received when the SDK sent it (old sessions would be refused). */
  sendFixture(name: string): Promise<void>;
  /** Sum of the outcomes with this category, outcome and reason. */
  quantity(category: string, outcome: string, reason: string): Promise<number>;
  outcomes(): Promise<{ category: string; outcome: string; reason: string; quantity: number }[]>;
  close(): Promise<void>;
}

export async function openPipeline(create: () => Promise<TestDatabase>): Promise<Pipeline> {
  const database = await create();
  const db = await database.open();
  const projectId = (await bootstrap(db)).defaultKey.projectId;
  const writer: QueueWriter = await openQueueWriter(db);
  const reader: QueueReader = await openQueueReader(db);
  // Settings read fresh for every batch: a test changes a project and sends right away.
  const settings = new ProjectSettingsCache(0);
  const worker = new IngestWorker(reader, { batchSize: 50, settings });
  const send = (body: Buffer, receivedAt = Date.now()) =>
    writer.enqueue({ projectId, keyId: 1, receivedAt, kind: "envelope", body });
  const outcomes = () =>
    db.kysely
      .selectFrom("outcomes")
      .select(["category", "outcome", "reason", "quantity"])
      .execute();
  return {
    database,
    db,
    projectId,
    worker,
    send,
    sendFixture: (name) => {
      const body = fixture(name).body;
      const framed = frameEnvelope(body);
      if (!framed.ok) throw new Error(`fixture ${name} does not frame`);
      return send(body, Date.parse(String(framed.value.header.sent_at)));
    },
    outcomes,
    quantity: async (category, outcome, reason) =>
      (await outcomes())
        .filter((o) => o.category === category && o.outcome === outcome && o.reason === reason)
        .reduce((n, o) => n + Number(o.quantity), 0),
    close: async () => {
      await writer.close();
      await reader.close();
      await db.close();
      await database.drop();
    },
  };
}

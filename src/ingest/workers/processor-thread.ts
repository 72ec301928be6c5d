import { parentPort } from "node:worker_threads";
import { env } from "../../env";
import {
  processEnvelopes,
  type TransferredBatch,
  toTransferred,
} from "../process/process-envelopes";
import type { IngestSettings } from "../process/project-settings";
import type { QueuedEnvelope } from "../queue/queue";
import { currentThreadId, lowerThreadPriority } from "./thread-priority";

/**
 * Entry of a processor thread: the CPU-heavy part of the worker (parse, normalize,
 * fingerprint, compress) for a share of each batch. It never touches the database; the
 * worker thread that sent the share stores the results.
 */
export interface ProcessRequest {
  id: number;
  envelopes: QueuedEnvelope[];
  /** The batch's projects' settings (a Map survives structured cloning). */
  settings?: ReadonlyMap<number, IngestSettings>;
}

export type ProcessResponse =
  | { id: number; ok: true; batch: TransferredBatch }
  | { id: number; ok: false; error: string };

/** The first message says the thread's id, so the pool can change its priority later. */
export type ProcessorMessage = ProcessResponse | { ready: true; tid: number | undefined };

lowerThreadPriority(env().FAULTLINE_ROLE);
parentPort?.postMessage({ ready: true, tid: currentThreadId() } satisfies ProcessorMessage);

parentPort?.on("message", (request: ProcessRequest) => {
  let response: ProcessResponse;
  try {
    // Buffers arrive as plain Uint8Arrays after cloning.
    const envelopes = request.envelopes.map((e) => ({
      ...e,
      body: Buffer.from(e.body.buffer, e.body.byteOffset, e.body.byteLength),
    }));
    response = {
      id: request.id,
      ok: true,
      batch: toTransferred(processEnvelopes(envelopes, request.settings)),
    };
  } catch (err) {
    response = {
      id: request.id,
      ok: false,
      error: err instanceof Error ? err.message : String(err),
    };
  }
  parentPort?.postMessage(response);
});

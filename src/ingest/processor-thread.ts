import { parentPort } from "node:worker_threads";
import { env } from "../env";
import { processEnvelopes, type TransferredBatch, toTransferred } from "./process";
import type { QueuedEnvelope } from "./queue";
import { lowerThreadPriority } from "./thread-priority";

/**
 * Entry of a processor thread: the CPU-heavy part of the worker (parse, normalize,
 * fingerprint, compress) for a share of each batch. It never touches the database; the
 * worker thread that sent the share stores the results.
 */
export interface ProcessRequest {
  id: number;
  envelopes: QueuedEnvelope[];
}

export type ProcessResponse =
  | { id: number; ok: true; batch: TransferredBatch }
  | { id: number; ok: false; error: string };

lowerThreadPriority(env().FAULTLINE_ROLE);

parentPort?.on("message", (request: ProcessRequest) => {
  let response: ProcessResponse;
  try {
    // Buffers arrive as plain Uint8Arrays after cloning.
    const envelopes = request.envelopes.map((e) => ({
      ...e,
      body: Buffer.from(e.body.buffer, e.body.byteOffset, e.body.byteLength),
    }));
    response = { id: request.id, ok: true, batch: toTransferred(processEnvelopes(envelopes)) };
  } catch (err) {
    response = {
      id: request.id,
      ok: false,
      error: err instanceof Error ? err.message : String(err),
    };
  }
  parentPort?.postMessage(response);
});

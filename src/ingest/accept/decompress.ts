import type { IncomingMessage } from "node:http";
import zlib from "node:zlib";

/**
 * Reads a request body, decompressing `Content-Encoding: gzip | deflate | br` as it streams,
 * with a cap on the bytes on the wire and on the bytes after decompression. Nothing beyond
 * the caps is ever buffered: past either one the read stops and the caller answers 413.
 */
export type BodyResult =
  | { ok: true; body: Buffer; wireBytes: number }
  | { ok: false; status: 400 | 413 | 415; detail: string };

export interface BodyLimits {
  maxWireBytes: number;
  maxDecodedBytes: number;
  /** Sees each decompressed chunk (plain bodies: none); a returned string ends the read with 413. */
  inspect?: (chunk: Buffer) => string | undefined;
}

function createDecoder(encoding: string): zlib.Gunzip | zlib.Unzip | zlib.BrotliDecompress | null {
  switch (encoding) {
    case "gzip":
    case "x-gzip":
    case "deflate":
      // Unzip detects gzip and zlib headers alike; some clients label one as the other.
      return zlib.createUnzip();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

/**
 * Calls `done` once with the body or the reason it was refused. A callback, not a promise:
 * this runs for every ingest request, where each promise costs an async-hooks call (Next's
 * AsyncLocalStorage is on in this process) and garbage.
 */
export function readBody(
  req: IncomingMessage,
  limits: BodyLimits,
  done: (result: BodyResult) => void,
): void {
  const encoding = (req.headers["content-encoding"] ?? "").toString().trim().toLowerCase();
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limits.maxWireBytes) {
    done({
      ok: false,
      status: 413,
      detail: `request body of ${declared} bytes exceeds the limit of ${limits.maxWireBytes}`,
    });
    return;
  }
  if (encoding === "" || encoding === "identity") {
    readPlain(req, limits, done);
    return;
  }
  const decoder = createDecoder(encoding);
  if (!decoder) {
    done({ ok: false, status: 415, detail: `unsupported Content-Encoding "${encoding}"` });
    return;
  }
  readDecoded(req, decoder, encoding, limits, done);
}

function readPlain(
  req: IncomingMessage,
  limits: BodyLimits,
  resolve: (result: BodyResult) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const finish = (result: BodyResult) => {
    if (done) return;
    done = true;
    req.off("data", onData);
    resolve(result);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limits.maxWireBytes) {
      chunks.length = 0;
      finish({
        ok: false,
        status: 413,
        detail: `request body exceeds the limit of ${limits.maxWireBytes} bytes`,
      });
      return;
    }
    chunks.push(chunk);
  };
  req.on("data", onData);
  req.once("end", () =>
    finish({
      ok: true,
      body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size),
      wireBytes: size,
    }),
  );
  req.once("error", () =>
    finish({ ok: false, status: 400, detail: "request body could not be read" }),
  );
  req.once("aborted", () => finish({ ok: false, status: 400, detail: "request aborted" }));
}

function readDecoded(
  req: IncomingMessage,
  decoder: zlib.Gunzip | zlib.Unzip | zlib.BrotliDecompress,
  encoding: string,
  limits: BodyLimits,
  resolve: (result: BodyResult) => void,
): void {
  const chunks: Buffer[] = [];
  let wire = 0;
  let decoded = 0;
  let done = false;

  const finish = (result: BodyResult) => {
    if (done) return;
    done = true;
    req.off("data", onWire);
    req.unpipe?.();
    decoder.removeAllListeners("data");
    // Keep an error listener: destroy() may still emit one, which would otherwise throw.
    decoder.on("error", () => {});
    decoder.destroy();
    if (!result.ok) chunks.length = 0;
    resolve(result);
  };

  const onWire = (chunk: Buffer) => {
    wire += chunk.length;
    if (wire > limits.maxWireBytes) {
      finish({
        ok: false,
        status: 413,
        detail: `request body exceeds the limit of ${limits.maxWireBytes} bytes`,
      });
      return;
    }
    if (!decoder.write(chunk)) {
      req.pause();
      decoder.once("drain", () => {
        if (!done) req.resume();
      });
    }
  };

  decoder.on("data", (chunk: Buffer) => {
    decoded += chunk.length;
    if (decoded > limits.maxDecodedBytes) {
      finish({
        ok: false,
        status: 413,
        detail: `decompressed body exceeds the limit of ${limits.maxDecodedBytes} bytes`,
      });
      return;
    }
    const problem = limits.inspect?.(chunk);
    if (problem) {
      finish({ ok: false, status: 413, detail: problem });
      return;
    }
    chunks.push(chunk);
  });
  decoder.once("end", () =>
    finish({ ok: true, body: Buffer.concat(chunks, decoded), wireBytes: wire }),
  );
  decoder.once("error", (err) =>
    finish({
      ok: false,
      status: 400,
      detail: `body is not valid ${encoding} data: ${err.message}`,
    }),
  );

  req.on("data", onWire);
  req.once("end", () => {
    if (!done) decoder.end();
  });
  req.once("error", () =>
    finish({ ok: false, status: 400, detail: "request body could not be read" }),
  );
  req.once("aborted", () => finish({ ok: false, status: 400, detail: "request aborted" }));
}

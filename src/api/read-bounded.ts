import { AppError } from "../errors";

/**
 * Reads a request body up to `limit` bytes: a declared Content-Length over it is refused
 * before reading, and a body that grows past it (chunked, or lying about its length) is cut
 * off there with a 413, never buffered whole first.
 */
export async function readBounded(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw new AppError("payload_too_large", `request over ${limit} bytes`);
  if (!request.body) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Not awaited: cancelling one branch of a cloned request settles only when the other
      // branch is cancelled too, and the answer must not wait for that.
      reader.cancel().catch(() => undefined);
      throw new AppError("payload_too_large", `request over ${limit} bytes`);
    }
    parts.push(Buffer.from(value));
  }
  return Buffer.concat(parts);
}

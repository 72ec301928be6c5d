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
      await reader.cancel();
      throw new AppError("payload_too_large", `request over ${limit} bytes`);
    }
    parts.push(Buffer.from(value));
  }
  return Buffer.concat(parts);
}

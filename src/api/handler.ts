import { timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Db } from "../db/connection";
import { getDb } from "../db/connection";
import { env } from "../env";
import { AppError, isAppError } from "../errors";

/**
 * Wraps a read-API route: bearer-token check, zod-parsed params, AppError → JSON status.
 * Until accounts exist, the one token in FAULTLINE_API_TOKEN has full rights; without it
 * configured, every request is refused (there is no anonymous read access).
 */
type Handler<P> = (args: { db: Db; params: P; url: URL; request: Request }) => Promise<unknown>;

export function apiRoute<S extends z.ZodType>(paramsSchema: S, handler: Handler<z.infer<S>>) {
  return async (request: Request, context: { params: Promise<unknown> }): Promise<Response> => {
    try {
      checkToken(request.headers.get("authorization"));
      const parsed = paramsSchema.safeParse(await context.params);
      if (!parsed.success) throw new AppError("not_found", "not found");
      const body = await handler({
        db: getDb(),
        params: parsed.data,
        url: new URL(request.url),
        request,
      });
      // A handler that answers with something other than JSON (a download) returns a Response.
      return body instanceof Response ? body : Response.json(body);
    } catch (err) {
      if (isAppError(err)) return Response.json({ detail: err.message }, { status: err.status });
      console.error("[api] unexpected error:", err);
      return Response.json({ detail: "internal error" }, { status: 500 });
    }
  };
}

function checkToken(header: string | null): void {
  const expected = env().FAULTLINE_API_TOKEN;
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  if (!match) throw new AppError("unauthorized", "authentication credentials were not provided");
  const given = Buffer.from(match[1] as string);
  if (
    !expected ||
    given.length !== Buffer.byteLength(expected) ||
    !timingSafeEqual(given, Buffer.from(expected))
  ) {
    throw new AppError("unauthorized", "invalid token");
  }
}

/** Ids in URLs are positive integers; anything else is simply not found. */
export const idParam = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number);
export const slugParam = z.string().min(1).max(100);

/** Parses a JSON request body with a zod schema; a bad body is a 400 naming the problem. */
export async function jsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
): Promise<z.infer<S>> {
  const text = await request.text();
  if (text.length > 64 * 1024) throw new AppError("payload_too_large", "request body over 64 KiB");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError("bad_request", "request body is not valid JSON");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new AppError("bad_request", `${problem?.path.join(".") || "body"}: ${problem?.message}`);
  }
  return parsed.data;
}

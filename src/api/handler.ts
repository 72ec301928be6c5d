import { z } from "zod";
import type { Scope } from "../auth/permissions";
import type { Db } from "../db/connection";
import { getDb } from "../db/connection";
import { logDbFailure } from "../db/failure-log";
import { isTransientDbError } from "../db/transient-errors";
import { AppError, isAppError } from "../errors";
import { ApiAccess, authenticateApi, type OrgGrant } from "./access";
import { readBounded } from "./read-bounded";

/**
 * Wraps a REST API route: authentication (src/api/access.ts), zod-parsed params, the scope the
 * route needs, AppError → JSON `{detail}` with its status. A route states what it needs and
 * never checks a role itself:
 *
 *   export const GET = orgApiRoute({ params, need: "event:read" }, ({ grant, … }) => …);
 *
 * `orgApiRoute` is for paths that name the organization (`[org]`): the caller's access to it
 * is settled before the handler runs. `apiRoute` is for paths that name an object by id
 * (`/issues/<id>/`): the handler finds it and asks `access.orgById(orgId, need)`, which
 * answers 404 for an object of an organization the caller cannot see.
 */
interface RouteArgs<P> {
  db: Db;
  params: P;
  url: URL;
  request: Request;
  access: ApiAccess;
  need: Scope;
}
type Handler<P> = (args: RouteArgs<P>) => Promise<unknown>;
type OrgHandler<P> = (args: RouteArgs<P> & { grant: OrgGrant }) => Promise<unknown>;

interface RouteSpec<S extends z.ZodType> {
  params: S;
  need: Scope;
}

export function apiRoute<S extends z.ZodType>(spec: RouteSpec<S>, handler: Handler<z.infer<S>>) {
  return async (request: Request, context: { params: Promise<unknown> }): Promise<Response> => {
    try {
      const db = getDb();
      const access = new ApiAccess(db, await authenticateApi(db, request));
      const parsed = spec.params.safeParse(await context.params);
      if (!parsed.success) throw new AppError("not_found", "not found");
      const body = await handler({
        db,
        params: parsed.data,
        url: new URL(request.url),
        request,
        access,
        need: spec.need,
      });
      // A handler that answers with something other than JSON (a download) returns a Response.
      return body instanceof Response ? body : Response.json(body);
    } catch (err) {
      return errorResponse(err);
    }
  };
}

export function orgApiRoute<S extends z.ZodType<{ org: string }>>(
  spec: RouteSpec<S>,
  handler: OrgHandler<z.infer<S>>,
) {
  return apiRoute(spec, async (args) => {
    const grant = await args.access.org(args.params.org, args.need);
    return handler({ ...args, grant });
  });
}

export function errorResponse(err: unknown): Response {
  if (isAppError(err)) return Response.json({ detail: err.message }, { status: err.status });
  // The database away (a restart, a failover): the request may succeed in a moment.
  if (isTransientDbError(err)) {
    logDbFailure("[api] database unavailable", err);
    return Response.json(
      { detail: "the database is unavailable; retry later" },
      { status: 503, headers: { "Retry-After": "5" } },
    );
  }
  console.error("[api] unexpected error:", err);
  return Response.json({ detail: "internal error" }, { status: 500 });
}

/** Ids in URLs are positive integers; anything else is simply not found. */
export const idParam = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number);
export const slugParam = z.string().min(1).max(100);

/** API bodies are small JSON documents (a comment, a token's scopes, an issue's status). */
export const MAX_JSON_BODY = 64 * 1024;

/**
 * Parses a JSON request body with a zod schema; a bad body is a 400 naming the problem, one
 * over 64 KiB a 413 as soon as it is known to be (read through a bounded reader).
 */
export async function jsonBody<S extends z.ZodType>(
  request: Request,
  schema: S,
): Promise<z.infer<S>> {
  const bytes = await readBounded(request, MAX_JSON_BODY);
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
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

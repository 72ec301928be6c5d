import { z } from "zod";
import type { Db } from "../db/connection";
import { AppError } from "../errors";
import { findOrgProjects } from "../projects/org-projects";
import { MAX_TRACE_SPANS, traceErrors, traceSpans } from "./queries";
import { buildTraceTree } from "./tree";

/** GET /api/0/organizations/<org>/events-trace/<trace id>/ */
export const traceIdParam = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/)
  .transform((s) => s.toLowerCase());

export async function traceResponse(db: Db, orgSlug: string, traceId: string) {
  const org = await findOrgProjects(db, orgSlug);
  if (!org) throw new AppError("not_found", "organization not found");
  const ids = org.projects.map((p) => p.id);
  const [spans, errors] = await Promise.all([
    traceSpans(db, ids, traceId),
    traceErrors(db, ids, traceId),
  ]);
  if (spans.length === 0 && errors.length === 0) throw new AppError("not_found", "trace not found");
  const slugs = new Map(org.projects.map((p) => [p.id, p.slug]));
  return {
    trace_id: traceId,
    ...buildTraceTree(spans, errors, slugs),
    truncated: spans.length >= MAX_TRACE_SPANS,
  };
}

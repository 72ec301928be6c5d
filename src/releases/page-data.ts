import { z } from "zod";
import type { Db } from "../db/connection";
import { listProjectOptions } from "../issues/list-options";
import {
  environmentSchema,
  type Period,
  parseFields,
  periodSchema,
  projectSlugSchema,
} from "./page-params";

type Raw = Record<string, string | string[] | undefined>;

/** The releases pages' URL: project, environment, period; a bad value falls back, named. */
export async function parseReleaseFilters(db: Db, orgId: number, raw: Raw) {
  const { params, invalid } = parseFields(
    raw,
    {
      project: projectSlugSchema.optional(),
      environment: environmentSchema.optional(),
      period: periodSchema,
    },
    { project: undefined, environment: undefined, period: "14d" as Period },
  );
  const projects = await listProjectOptions(db, orgId);
  const project = params.project ? projects.find((p) => p.slug === params.project) : undefined;
  if (params.project && !project) {
    invalid.push("project");
    params.project = undefined;
  }
  return { params, invalid, projects, projectId: project?.id };
}

/**
 * A release version in a URL segment: any text an SDK may send (≤ 200 characters). Links
 * encode it with encodeURIComponent; a segment that is not valid percent-encoding is taken
 * as it stands.
 */
export const versionSegment = z
  .string()
  .transform((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  })
  .pipe(z.string().min(1).max(200));

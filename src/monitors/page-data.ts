import type { Db } from "../db/connection";
import { findSetupDsn } from "../projects/queries";
import { overview, recentTicks, TIMELINE_RUNS } from "./overview";
import { listOrgMonitors } from "./queries";

/**
 * One monitor's page: its overview and the DSN for snippets. The check-in history is read
 * apart (components/crons/check-in-history.tsx), streamed behind Suspense.
 */
export async function monitorPageData(
  db: Db,
  org: { id: number; slug: string },
  slug: string,
  baseUrl: string,
) {
  const m = (await listOrgMonitors(db, org.id)).find((row) => row.slug === slug);
  if (!m) return undefined;
  const [ticks, dsn] = await Promise.all([
    recentTicks(db, m.id, TIMELINE_RUNS),
    findSetupDsn(db, m.project_id, baseUrl),
  ]);
  return { monitor: overview(m, ticks), row: m, dsn };
}

/** Setup snippets for a monitor: the SDK's two ways and a plain curl of an envelope. */
export function monitorSnippets(slug: string, dsn: string, schedule: string) {
  const url = new URL(dsn);
  const projectId = url.pathname.replace(/^\//, "");
  const endpoint = `${url.protocol}//${url.host}/api/${projectId}/envelope/?sentry_key=${url.username}`;
  const s = JSON.stringify(slug);
  return {
    withMonitor: `import * as Sentry from "@sentry/node";\n\nSentry.init({ dsn: "${dsn}" });\n\nawait Sentry.withMonitor(${s}, () => runJob(), {\n  schedule: ${schedule},\n});`,
    captureCheckIn: `const checkInId = Sentry.captureCheckIn({ monitorSlug: ${s}, status: "in_progress" });\n// … the job …\nSentry.captureCheckIn({ checkInId, monitorSlug: ${s}, status: "ok" }); // or "error"`,
    curl: `curl -X POST '${endpoint}' \\\n  -H 'Content-Type: application/x-sentry-envelope' \\\n  --data-binary "$(printf '{}\\n{"type":"check_in"}\\n{"check_in_id":"%s","monitor_slug":%s,"status":"ok"}\\n' "$(cat /proc/sys/kernel/random/uuid | tr -d -)" '${s.replace(/'/g, "'\\''")}')"`,
  };
}

import { z } from "zod";
import { jsonBody, orgApiRoute, slugParam } from "@/src/api/handler";
import { apiAuditActor } from "@/src/audit/actor";
import { projectUptimeResponse, uptimeMonitorResponse, uptimeScope } from "@/src/uptime/api";
import { UptimeInputSchema } from "@/src/uptime/model";
import { createUptimeMonitor } from "@/src/uptime/mutations";

/** A project's uptime monitors: GET the list, POST a new one (Sentry's field names). */
const Params = z.object({ org: slugParam, project: slugParam });

export const GET = orgApiRoute({ params: Params, need: "alerts:read" }, ({ db, params, grant }) =>
  projectUptimeResponse(db, grant, params.project),
);

export const POST = orgApiRoute(
  { params: Params, need: "alerts:write" },
  async ({ db, params, grant, request }) => {
    const scope = await uptimeScope(db, grant, params.project);
    const input = await jsonBody(request, UptimeInputSchema);
    const id = await createUptimeMonitor(db, scope, input, await apiAuditActor(db, grant, request));
    return uptimeMonitorResponse(db, scope, id);
  },
);

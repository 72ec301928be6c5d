import { z } from "zod";
import { idParam, jsonBody, orgApiRoute, slugParam } from "@/src/api/handler";
import { apiAuditActor } from "@/src/audit/actor";
import { uptimeMonitorResponse, uptimeScope } from "@/src/uptime/api";
import { UptimeUpdateSchema } from "@/src/uptime/model";
import { deleteUptimeMonitor, updateUptimeMonitor } from "@/src/uptime/mutations";

/** One uptime monitor: GET, PUT (the fields given), DELETE. */
const Params = z.object({ org: slugParam, project: slugParam, monitorId: idParam });

export const GET = orgApiRoute(
  { params: Params, need: "alerts:read" },
  async ({ db, params, grant }) =>
    uptimeMonitorResponse(db, await uptimeScope(db, grant, params.project), params.monitorId),
);

export const PUT = orgApiRoute(
  { params: Params, need: "alerts:write" },
  async ({ db, params, grant, request }) => {
    const scope = await uptimeScope(db, grant, params.project);
    const input = await jsonBody(request, UptimeUpdateSchema);
    const actor = await apiAuditActor(db, grant, request);
    await updateUptimeMonitor(db, scope, params.monitorId, input, actor);
    return uptimeMonitorResponse(db, scope, params.monitorId);
  },
);

export const DELETE = orgApiRoute(
  { params: Params, need: "alerts:write" },
  async ({ db, params, grant, request }) => {
    const scope = await uptimeScope(db, grant, params.project);
    const actor = await apiAuditActor(db, grant, request);
    await deleteUptimeMonitor(db, scope, params.monitorId, actor);
    return new Response(null, { status: 204 });
  },
);

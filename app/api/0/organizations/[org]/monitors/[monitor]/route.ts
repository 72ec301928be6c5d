import { z } from "zod";
import { jsonBody, orgApiRoute, slugParam } from "@/src/api/handler";
import { apiAuditActor } from "@/src/audit/actor";
import { orgMonitorResponse } from "@/src/monitors/api";
import { deleteMonitor, setMonitorMuted } from "@/src/monitors/mutations";

const Params = z.object({ org: slugParam, monitor: slugParam });

export const GET = orgApiRoute({ params: Params, need: "org:read" }, ({ db, params }) =>
  orgMonitorResponse(db, params.org, params.monitor),
);

/** Sentry's shape: `{"isMuted": true}` mutes, false unmutes. */
export const PUT = orgApiRoute(
  { params: Params, need: "project:write" },
  async ({ db, params, request, grant }) => {
    const body = await jsonBody(request, z.object({ isMuted: z.boolean() }));
    await setMonitorMuted(
      db,
      grant.org.id,
      params.monitor,
      body.isMuted,
      await apiAuditActor(db, grant, request),
    );
    return orgMonitorResponse(db, params.org, params.monitor);
  },
);

export const DELETE = orgApiRoute(
  { params: Params, need: "project:write" },
  async ({ db, params, request, grant }) => {
    await deleteMonitor(db, grant.org.id, params.monitor, await apiAuditActor(db, grant, request));
    return new Response(null, { status: 204 });
  },
);

import { z } from "zod";
import {
  monitorAlertsResponse,
  monitorDeliveryLogResponse,
  updateMonitorAlertsResponse,
} from "@/src/alerts/delivery/api";
import { orgApiRoute, slugParam } from "@/src/api/handler";

/**
 * A cron monitor's alerts: GET its channels and failure threshold (`?log=1`: its recent
 * deliveries), PUT `{actions, failureThreshold}`.
 */
const params = z.object({ org: slugParam, monitor: slugParam });

export const GET = orgApiRoute({ params, need: "alerts:read" }, ({ db, grant, params, url }) =>
  url.searchParams.get("log") === "1"
    ? monitorDeliveryLogResponse(db, grant, params.monitor)
    : monitorAlertsResponse(db, grant, params.monitor),
);

export const PUT = orgApiRoute({ params, need: "alerts:write" }, ({ db, grant, params, request }) =>
  updateMonitorAlertsResponse(db, grant, params.monitor, request),
);

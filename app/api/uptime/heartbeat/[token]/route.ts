import { errorResponse } from "@/src/api/handler";
import { getDb } from "@/src/db/connection";
import { recordHeartbeat } from "@/src/uptime/heartbeat";

/**
 * A heartbeat monitor's ping (GET, HEAD or POST; the secret path is the credential, as a cron
 * job's `curl` can send nothing else). 404 for a token that names no heartbeat monitor.
 */
async function ping(_request: Request, context: { params: Promise<{ token: string }> }) {
  try {
    const { token } = await context.params;
    const found = await recordHeartbeat(getDb(), token);
    return found
      ? Response.json({ ok: true })
      : Response.json({ detail: "not found" }, { status: 404 });
  } catch (err) {
    return errorResponse(err);
  }
}

export const GET = ping;
export const POST = ping;
export const HEAD = ping;

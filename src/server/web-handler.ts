import type http from "node:http";
import { isCrossOriginServerAction } from "../auth/cross-origin-action";
import { send } from "../ingest/accept/respond";

export type NextHandler = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

/**
 * Everything server.ts does with a request that is not ingest, before Next sees it. Runs
 * where Next runs: the web thread in role all (web-thread.ts), the main thread in role web.
 * `clientIp` gives the address sign-in limits key on (see src/auth/client-ip.ts).
 */
export function webHandler(
  nextHandler: NextHandler,
  clientIp: (req: http.IncomingMessage) => string,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (isCrossOriginServerAction(req.method, url.pathname, req.headers)) {
      send(res, 403, { detail: "server actions are only accepted from this site's own pages" });
      return;
    }
    // Sentry's API paths end in "/"; Next would redirect them. Serve them directly instead.
    if (url.pathname.startsWith("/api/0/") && url.pathname.endsWith("/")) {
      req.url = url.pathname.slice(0, -1) + url.search;
    }
    // Next trusts a client-sent X-Forwarded-For; sign-in limits key on it, so it is replaced
    // with the one address the caller vouches for.
    req.headers["x-forwarded-for"] = clientIp(req);
    nextHandler(req, res).catch((err) => {
      console.error("[web] unhandled error:", err);
      if (!res.headersSent) send(res, 500, { detail: "internal error" });
      else res.destroy();
    });
  };
}

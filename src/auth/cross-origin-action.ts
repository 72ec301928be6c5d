import type { IncomingHttpHeaders } from "node:http";
import { firstHop } from "./client-ip";

/**
 * A server action posted from another origin (CSRF) is refused before it reaches Next.
 *
 * Next refuses it too, but answers 500 with "Invalid Server Actions request" and logs it as
 * an error, so an attack looked like a Faultline failure. server.ts answers 403 instead,
 * with the same rule Next applies (app-render/action-handler.js): a request is a server
 * action when it is a POST with a `Next-Action` header (fetch actions) or a multipart form
 * (actions posted without JavaScript); it is cross-origin when its `Origin` host differs
 * from `X-Forwarded-Host` (first value) or, without one, `Host`. No `Origin` at all is let
 * through, as Next does: browsers send it on every cross-origin POST, and a hand-made request
 * carries no victim's cookie. Route handlers (/api/…) take no server actions. Faultline sets
 * no `serverActions.allowedOrigins`; one set in next.config would have to be honoured here.
 */
export function isCrossOriginServerAction(
  method: string | undefined,
  pathname: string,
  headers: IncomingHttpHeaders,
): boolean {
  if (method !== "POST" || pathname.startsWith("/api/")) return false;
  const contentType = headers["content-type"] ?? "";
  if (!headers["next-action"] && !contentType.startsWith("multipart/form-data")) return false;
  const origin = headers.origin;
  if (typeof origin !== "string") return false;
  const host = firstHop(headers["x-forwarded-host"]) ?? headers.host;
  return originHost(origin) !== host;
}

function originHost(origin: string): string | undefined {
  if (origin === "null") return "null";
  try {
    return new URL(origin).host;
  } catch {
    return undefined; // not a URL: it matches no host
  }
}

import { env } from "../env";

/**
 * The base URL that DSNs shown in the UI point at: FAULTLINE_URL when set, else the host the
 * browser used to reach this page (so a DSN copied from the page works from where it was
 * copied). The Host header is the client's to choose, so it is used only when it is a plain
 * host name or address with an optional port; anything else falls back to localhost.
 */
const HOST_PATTERN =
  /^(?:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i;

export function publicBaseUrl(headers: Headers): string {
  const configured = env().FAULTLINE_URL;
  if (configured) return configured;
  const trustProxy = env().FAULTLINE_TRUST_PROXY;
  const forwardedHost = trustProxy ? firstValue(headers.get("x-forwarded-host")) : undefined;
  const host = forwardedHost ?? headers.get("host") ?? "";
  const proto =
    trustProxy && firstValue(headers.get("x-forwarded-proto")) === "https" ? "https" : "http";
  if (!HOST_PATTERN.test(host)) return `http://localhost:${env().PORT}`;
  return `${proto}://${host.toLowerCase()}`;
}

function firstValue(header: string | null): string | undefined {
  return header?.split(",")[0]?.trim() || undefined;
}

import { isIPv6 } from "node:net";

/**
 * The client address that sign-in limits are keyed by.
 *
 * Next fills X-Forwarded-For with the socket address only when the request has none, so on
 * its own the header is whatever the client sent. server.ts is therefore to replace it with
 * `resolveClientIp(...)` before handing a request to Next; pages, actions and better-auth then
 * read one trustworthy address from it with `clientIpFromHeaders`.
 */
export function resolveClientIp(
  forwardedFor: string | string[] | undefined,
  socketAddress: string | undefined,
  trustProxy: boolean,
): string {
  const forwarded = trustProxy ? firstHop(forwardedFor) : undefined;
  return normalizeIp(forwarded ?? socketAddress ?? "unknown");
}

export function clientIpFromHeaders(headers: Headers): string {
  return normalizeIp(firstHop(headers.get("x-forwarded-for") ?? undefined) ?? "unknown");
}

/** The first value of a forwarding header (repeated, or a comma-separated list). */
export function firstHop(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const first = value?.split(",")[0]?.trim();
  return first ? first : undefined;
}

/**
 * IPv4-mapped IPv6 becomes plain IPv4, and IPv6 is cut to its /64: one subscriber usually
 * holds a whole /64, so limiting single addresses would not limit them at all.
 */
export function normalizeIp(ip: string): string {
  const lower = ip.toLowerCase();
  if (lower.startsWith("::ffff:") && lower.includes(".")) return lower.slice(7);
  if (!isIPv6(lower)) return lower;
  const [head = "", tail = ""] = lower.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = lower.includes("::")
    ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

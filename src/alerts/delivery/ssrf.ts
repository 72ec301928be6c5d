import { lookup as dnsLookup } from "node:dns";
import { lookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { env } from "../../env";

/**
 * Server-side request forgery guard for webhook URLs. A URL is refused when its host is (or
 * resolves to) a loopback, link-local, private, CGNAT, multicast or reserved IPv4 address, or
 * an IPv6 loopback, link-local, unique-local (fc00::/7), IPv4-mapped or IPv4-compatible form of
 * one. The check runs twice: `checkWebhookUrl` when a rule is saved (a field error), and
 * `guardedLookup` when the sender connects, so a name that resolved publicly at save time and
 * privately later (DNS rebinding) is still refused. `FAULTLINE_ALLOW_PRIVATE_WEBHOOKS=1`
 * turns both off (receivers inside the company network, tests).
 */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3],
] as const)
  BLOCKED.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  BLOCKED.addSubnet(net, bits, "ipv6");

/** True for any address a webhook must not reach (and for anything that is not an address). */
export function isBlockedAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(a);
  if (family === 0) return true;
  if (family === 4) return BLOCKED.check(a, "ipv4");
  // IPv4-mapped and -compatible forms are refused whatever they embed.
  if (embeddedIpv4(a) !== undefined) return true;
  return BLOCKED.check(a, "ipv6");
}

/**
 * The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d / ::ffff:0:…) or IPv4-compatible
 * (::a.b.c.d) IPv6 address. Webhooks never need these forms: they are refused outright.
 */
function embeddedIpv4(a: string): string | undefined {
  const lower = a.toLowerCase();
  const dotted = /^::(?:ffff:(?:0{1,4}:)?)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^::ffff:(?:0{1,4}:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = Number.parseInt(hex[1] as string, 16);
    const lo = Number.parseInt(hex[2] as string, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

export function privateWebhooksAllowed(): boolean {
  return env().FAULTLINE_ALLOW_PRIVATE_WEBHOOKS;
}

export class BlockedAddressError extends Error {
  constructor(host: string, address: string) {
    super(
      `${host} resolves to ${address}, a private or reserved address (set FAULTLINE_ALLOW_PRIVATE_WEBHOOKS=1 to allow it)`,
    );
    this.name = "BlockedAddressError";
  }
}

/**
 * Checks a webhook URL as the rules editor saves it: an http(s) URL without credentials whose
 * host resolves to public addresses only. Returns the problem as one sentence, or null.
 */
export async function checkWebhookUrl(raw: string): Promise<string | null> {
  if (typeof raw !== "string" || raw.length === 0) return "a URL is required";
  if (raw.length > 2048) return "the URL is longer than 2,048 characters";
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "not a valid URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return "the URL must start with https:// or http://";
  if (url.username || url.password) return "the URL must not contain a user name or password";
  if (privateWebhooksAllowed()) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost"))
    return `${host} is a local address (set FAULTLINE_ALLOW_PRIVATE_WEBHOOKS=1 to allow it)`;
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `the host ${host} does not resolve`;
  }
  const blocked = addresses.find(isBlockedAddress);
  if (addresses.length === 0) return `the host ${host} does not resolve`;
  if (blocked) return new BlockedAddressError(host, blocked).message;
  return null;
}

/**
 * A `lookup` for http.request: resolves as usual, then refuses the connection when any
 * address is blocked. Node calls it for host names; literal IPs are checked by the caller.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, "", 0);
    const list = addresses as unknown as { address: string; family: number }[];
    if (!privateWebhooksAllowed()) {
      const blocked = list.find((a) => isBlockedAddress(a.address));
      if (blocked || list.length === 0) {
        return callback(
          new BlockedAddressError(hostname, blocked?.address ?? "nothing") as NodeJS.ErrnoException,
          "",
          0,
        );
      }
    }
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      return;
    }
    const first = list[0] as { address: string; family: number };
    callback(null, first.address, first.family);
  });
};

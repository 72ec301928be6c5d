import { lookup as dnsLookup } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import {
  Agent,
  buildConnector,
  type Dispatcher,
  getGlobalDispatcher,
  setGlobalDispatcher,
} from "undici";

/**
 * The one address rule for everything the server fetches on someone else's say-so (webhooks,
 * an organization's identity provider): no loopback, link-local, private, CGNAT, multicast or
 * reserved IPv4 address, and no IPv6 loopback, link-local, unique-local (fc00::/7), NAT64
 * (64:ff9b::/96), 6to4 (2002::/16), documentation, IPv4-mapped or IPv4-compatible address.
 * It is checked when a connection is made (`guardedLookup`, `guardedAgent`), not only when a
 * URL is saved, so a name that resolved publicly then and privately now (DNS rebinding) is
 * still refused. Each caller says whether its operator allowed private addresses.
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

/** True for any address the server must not reach (and for anything that is not an address). */
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
 * (::a.b.c.d) IPv6 address. Outbound calls never need these forms: they are refused outright.
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

export class BlockedAddressError extends Error {
  constructor(host: string, address: string, allowedBy: string) {
    super(
      `${host} resolves to ${address}, a private or reserved address (set ${allowedBy}=1 to allow it)`,
    );
    this.name = "BlockedAddressError";
  }
}

/** What a caller's operator allowed: private addresses, and the variable that allows them. */
export interface OutboundPolicy {
  allowPrivate: () => boolean;
  allowedBy: string;
}

/**
 * A `lookup` for node:http and undici: resolves as usual, then refuses the connection when
 * any address is blocked. Both call it for host names; literal IPs are checked by
 * `refusedHost` (or, for undici, by `guardedAgent`'s connect).
 */
export function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "", 0);
      const list = addresses as unknown as { address: string; family: number }[];
      if (!policy.allowPrivate()) {
        const blocked = list.find((a) => isBlockedAddress(a.address));
        if (blocked || list.length === 0) {
          const error = new BlockedAddressError(
            hostname,
            blocked?.address ?? "nothing",
            policy.allowedBy,
          );
          return callback(error as NodeJS.ErrnoException, "", 0);
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
}

/** The refusal for a host (a URL's hostname) that is itself a blocked address, else null. */
export function refusedHost(hostname: string, policy: OutboundPolicy): BlockedAddressError | null {
  const host = hostname.replace(/^\[|\]$/g, "");
  if (!isIP(host) || policy.allowPrivate() || !isBlockedAddress(host)) return null;
  return new BlockedAddressError(host, host, policy.allowedBy);
}

/** An undici agent (for `fetch`'s `dispatcher`) that connects only where the policy allows. */
export function guardedAgent(policy: OutboundPolicy): Agent {
  // undici's own connector, given the guarded lookup for host names; literal IPs, which no
  // lookup sees, are checked before connecting.
  const connector = buildConnector({
    lookup: guardedLookup(policy),
  } as buildConnector.BuildOptions);
  return new Agent({
    connect: (options, callback) => {
      const refused = refusedHost(options.hostname, policy);
      if (refused) return callback(refused, null);
      return connector(options, callback);
    },
  });
}

/**
 * Origins that code we do not control (better-auth fetching an identity provider's token,
 * key and userinfo endpoints, with the global `fetch`) must reach only through the guard: the
 * process's fetch dispatcher sends requests to these origins through `guardedAgent`, and all
 * others as before.
 */
const guardedOrigins = new Map<string, Dispatcher>();
let routingInstalled = false;

export function guardOrigins(urls: readonly string[], policy: OutboundPolicy): void {
  const agent = guardedAgent(policy);
  for (const u of urls) guardedOrigins.set(new URL(u).origin, agent);
  if (routingInstalled) return;
  routingInstalled = true;
  const fallback = getGlobalDispatcher();
  setGlobalDispatcher(
    new (class RoutingDispatcher extends Agent {
      dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers) {
        const origin = options.origin ? new URL(String(options.origin)).origin : "";
        return (guardedOrigins.get(origin) ?? fallback).dispatch(options, handler);
      }
    })(),
  );
}

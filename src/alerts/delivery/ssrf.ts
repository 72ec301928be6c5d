import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { env } from "../../env";
import {
  BlockedAddressError,
  guardedLookup,
  isBlockedAddress,
  type OutboundPolicy,
} from "../../security/outbound";

/**
 * Server-side request forgery guard for webhook URLs, on the server's one outbound address
 * rule (src/security/outbound.ts). The check runs twice: `checkWebhookUrl` when a rule is
 * saved (a field error), and `webhookLookup` when the sender connects, so a name that
 * resolved publicly at save time and privately later (DNS rebinding) is still refused.
 * `FAULTLINE_ALLOW_PRIVATE_WEBHOOKS=1` turns both off (receivers inside the company network,
 * tests).
 */
export function privateWebhooksAllowed(): boolean {
  return env().FAULTLINE_ALLOW_PRIVATE_WEBHOOKS;
}

export const WEBHOOK_POLICY: OutboundPolicy = {
  allowPrivate: privateWebhooksAllowed,
  allowedBy: "FAULTLINE_ALLOW_PRIVATE_WEBHOOKS",
};

/** The sender's `lookup`: resolves, then refuses a connection to a blocked address. */
export const webhookLookup = guardedLookup(WEBHOOK_POLICY);

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
  if (blocked) return new BlockedAddressError(host, blocked, WEBHOOK_POLICY.allowedBy).message;
  return null;
}

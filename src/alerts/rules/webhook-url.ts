import { isIP } from "node:net";

/**
 * Whether a webhook URL names a loopback, link-local, private or unspecified address by
 * itself (an IP literal or localhost). Names that resolve to such addresses are refused again
 * by the sender when it connects; this check gives the editor its field error at once.
 */
export function isPrivateWebhookHost(url: string): boolean {
  if (process.env.FAULTLINE_ALLOW_PRIVATE_WEBHOOKS === "1") return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const kind = isIP(host);
  if (kind === 4) return privateV4(host);
  if (kind === 6) {
    if (host === "::1" || host === "::") return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
    if (mapped?.[1]) return privateV4(mapped[1]);
    return /^(fc|fd|fe8|fe9|fea|feb)/.test(host);
  }
  return false;
}

function privateV4(ip: string): boolean {
  const [a = 0, b = 0] = ip.split(".").map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

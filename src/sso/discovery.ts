import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { env } from "../env";
import { AppError } from "../errors";

/**
 * OpenID discovery of an organization's issuer, checked before it is saved and before a
 * provider is built from it: the document must come from the issuer's own well-known URL,
 * name that issuer exactly (OpenID Connect Discovery 1.0, §4.3), and offer what signing in
 * needs (authorization, token and key endpoints, signed id tokens). Unless the operator allows
 * it, the issuer must not resolve to a private, loopback or link-local address.
 */
export interface Discovery {
  url: string;
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 256 * 1024;

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv6");

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1] as string, "ipv4");
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6");
}

function problem(message: string): AppError {
  return new AppError("bad_request", `Single sign-on: ${message}`);
}

async function assertReachable(url: URL): Promise<void> {
  const allowPrivate = env().FAULTLINE_SSO_ALLOW_PRIVATE_ISSUERS;
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
    throw problem("the issuer must be an https:// URL");
  }
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw problem(`the issuer's host ${host} does not resolve`);
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw problem(
      `the issuer's host ${host} is on a private network (set FAULTLINE_SSO_ALLOW_PRIVATE_ISSUERS=1 to allow it)`,
    );
  }
}

export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
}

/** Fetches and checks the issuer's discovery document; a clear AppError when it falls short. */
export async function checkIssuer(issuer: string): Promise<Discovery> {
  const url = new URL(discoveryUrl(issuer));
  await assertReachable(url);
  let text: string;
  try {
    const res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (res.status !== 200)
      throw problem(`${url.href} answered ${res.status}, not a discovery document`);
    const body = await res.arrayBuffer();
    if (body.byteLength > MAX_BYTES) throw problem("the discovery document is too large");
    text = new TextDecoder().decode(body);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw problem(`could not reach ${url.href} (${(err as Error).message})`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw problem("the discovery document is not JSON");
  }
  const strip = (v: unknown) => (typeof v === "string" ? v.replace(/\/+$/, "") : undefined);
  if (strip(doc.issuer) !== issuer.replace(/\/+$/, "")) {
    throw problem(
      `the discovery document names another issuer (${String(doc.issuer).slice(0, 200)})`,
    );
  }
  for (const field of ["authorization_endpoint", "token_endpoint", "jwks_uri"] as const) {
    if (typeof doc[field] !== "string" || !URL.canParse(doc[field] as string)) {
      throw problem(`the discovery document has no ${field}`);
    }
  }
  // The server fetches these too: the same address rule applies to each.
  for (const field of ["token_endpoint", "jwks_uri", "userinfo_endpoint"] as const) {
    if (typeof doc[field] === "string") await assertReachable(new URL(doc[field] as string));
  }
  const algs = doc.id_token_signing_alg_values_supported;
  if (!Array.isArray(algs) || algs.length === 0)
    throw problem("the provider does not sign id tokens");
  return {
    url: url.href,
    issuer: doc.issuer as string,
    authorization_endpoint: doc.authorization_endpoint as string,
    token_endpoint: doc.token_endpoint as string,
    jwks_uri: doc.jwks_uri as string,
  };
}

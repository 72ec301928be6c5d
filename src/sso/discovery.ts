import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { env } from "../env";
import { AppError } from "../errors";
import { guardedAgent, isBlockedAddress, type OutboundPolicy } from "../security/outbound";

/**
 * OpenID discovery of an organization's issuer, checked before it is saved and before a
 * provider is built from it: the document must come from the issuer's own well-known URL,
 * name that issuer exactly (OpenID Connect Discovery 1.0, §4.3), and offer what signing in
 * needs (authorization, token and key endpoints, signed id tokens). Unless the operator allows
 * it, the issuer and the endpoints the server calls must not resolve to a private, loopback
 * or link-local address (src/security/outbound.ts) — when saved, and again on every connection.
 */
export interface Discovery {
  url: string;
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint?: string;
}

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 256 * 1024;

/** The server's one outbound rule, which the operator may relax for identity providers. */
export const SSO_POLICY: OutboundPolicy = {
  allowPrivate: () => env().FAULTLINE_SSO_ALLOW_PRIVATE_ISSUERS,
  allowedBy: "FAULTLINE_SSO_ALLOW_PRIVATE_ISSUERS",
};
/** Discovery is fetched through it: the address is checked again when connecting. */
const agent = guardedAgent(SSO_POLICY);

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
  if (addresses.length === 0 || addresses.some(isBlockedAddress)) {
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
    const res = await fetch(url, {
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
      dispatcher: agent,
    } as RequestInit);
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
    ...(typeof doc.userinfo_endpoint === "string"
      ? { userinfo_endpoint: doc.userinfo_endpoint }
      : {}),
  };
}

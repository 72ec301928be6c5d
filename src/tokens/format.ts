import { createHash, randomBytes } from "node:crypto";

/**
 * The two token formats Sentry's tools know. An organization auth token carries its server
 * and organization, so `sentry-cli` needs no `--url` or `--org`:
 *
 *   sntrys_<base64 of JSON {iat, url, region_url, org}>_<secret>
 *
 * A personal token is `sntryu_` and 64 hex characters. Only a token's SHA-256 is stored.
 */
export const ORG_TOKEN_PREFIX = "sntrys_";
export const USER_TOKEN_PREFIX = "sntryu_";

export interface OrgTokenPayload {
  iat: number;
  url: string;
  region_url: string;
  org: string;
}

export function generateOrgToken(url: string, orgSlug: string, now = Date.now()): string {
  const base = url.replace(/\/+$/, "");
  const payload: OrgTokenPayload = { iat: now / 1000, url: base, region_url: base, org: orgSlug };
  // Standard base64 (with padding) for both halves, as Sentry writes them: neither contains
  // `_`, so the token splits unambiguously.
  const encoded = Buffer.from(JSON.stringify(payload)).toString("base64");
  const secret = randomBytes(32).toString("base64").replace(/=+$/, "");
  return `${ORG_TOKEN_PREFIX}${encoded}_${secret}`;
}

export function generateUserToken(): string {
  return `${USER_TOKEN_PREFIX}${randomBytes(32).toString("hex")}`;
}

/** The payload of an organization token, or null when it is not one. */
export function parseOrgToken(token: string): OrgTokenPayload | null {
  const match = /^sntrys_([A-Za-z0-9+/]+={0,2})_([A-Za-z0-9+/]{43})$/.exec(token);
  if (!match) return null;
  try {
    const payload = JSON.parse(Buffer.from(match[1] as string, "base64").toString("utf8"));
    if (typeof payload?.org !== "string" || typeof payload?.url !== "string") return null;
    return payload as OrgTokenPayload;
  } catch {
    return null;
  }
}

export function isUserToken(token: string): boolean {
  return /^sntryu_[0-9a-f]{64}$/.test(token);
}

export function hashApiToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** What the UI shows of a token after it was created. */
export function lastCharacters(token: string): string {
  return token.slice(-4);
}

import crypto from "node:crypto";

/** A new DSN key pair: 32 hex characters each, like Sentry's. */
export function generateKeyPair(): { publicKey: string; secretKey: string } {
  return {
    publicKey: crypto.randomBytes(16).toString("hex"),
    secretKey: crypto.randomBytes(16).toString("hex"),
  };
}

/** `http://<public key>@<host>[:port]/<project id>`, the string an SDK is configured with. */
export function formatDsn(baseUrl: string, publicKey: string, projectId: number): string {
  const url = new URL(baseUrl);
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${publicKey}@${url.host}${path}/${projectId}`;
}

/** Parses a DSN as an SDK would; null when it is not one. */
export function parseDsn(
  dsn: string,
): { publicKey: string; projectId: string; host: string } | null {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    return null;
  }
  const projectId = url.pathname.split("/").filter(Boolean).pop();
  if (!url.username || !projectId) return null;
  let publicKey: string;
  try {
    publicKey = decodeURIComponent(url.username);
  } catch {
    // A stray "%" in the key (found by tests/fuzz.test.ts): not a DSN, not a server error.
    return null;
  }
  return { publicKey, projectId, host: url.host };
}

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { authSecret } from "../auth/secret";
import type { Db } from "../db/connection";

/**
 * Credentials for outside services (an on-call routing key, a bot token) at rest: AES-256-GCM
 * under a key derived (HKDF-SHA256) from the installation's auth secret, so a copy of a rule's
 * JSON, a backup or a log line holding the sealed text gives nothing without that secret.
 * Format: `fl1.<iv>.<tag>.<ciphertext>`, base64url. Sealed values are never returned by an API.
 */
const PREFIX = "fl1";

async function keyOf(db: Db): Promise<Buffer> {
  const secret = await authSecret(db);
  return Buffer.from(hkdfSync("sha256", secret, "faultline", "credentials v1", 32));
}

export async function seal(db: Db, value: unknown): Promise<string> {
  const key = await keyOf(db);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [PREFIX, iv, tag, data]
    .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
    .join(".");
}

/** The sealed value, or undefined when it was not sealed under this installation's secret. */
export async function unseal<T>(db: Db, sealed: string): Promise<T | undefined> {
  const parts = sealed.split(".");
  if (parts.length !== 4 || parts[0] !== PREFIX) return undefined;
  try {
    const [iv, tag, data] = parts.slice(1).map((p) => Buffer.from(p, "base64url")) as [
      Buffer,
      Buffer,
      Buffer,
    ];
    const decipher = createDecipheriv("aes-256-gcm", await keyOf(db), iv);
    decipher.setAuthTag(tag);
    const text = Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

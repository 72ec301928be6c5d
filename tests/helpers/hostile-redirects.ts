/**
 * Redirect targets an attacker would put in `next` (or any parameter that names where to go),
 * each of which a browser could read as another site: protocol-relative forms, backslashes
 * (read as `/`), control characters (dropped by the URL parser, so `/\t/` becomes `//`), their
 * percent-encoded spellings, schemes, and Unicode look-alikes of `/` and `.`.
 */
export const EVIL_HOST = "evil.example";

export const HOSTILE_REDIRECTS: readonly string[] = [
  `//${EVIL_HOST}`,
  `///${EVIL_HOST}`,
  `/\\${EVIL_HOST}`,
  `\\\\${EVIL_HOST}`,
  `/\\/${EVIL_HOST}`,
  `/\t/${EVIL_HOST}`,
  `/\n/${EVIL_HOST}`,
  `/\r/${EVIL_HOST}`,
  `/ /${EVIL_HOST}`,
  `\t//${EVIL_HOST}`,
  ` //${EVIL_HOST}`,
  `/%09/${EVIL_HOST}`,
  `/%0a/${EVIL_HOST}`,
  `/%2F/${EVIL_HOST}`,
  `/%2f%2f${EVIL_HOST}`,
  `/%5C${EVIL_HOST}`,
  `/.//${EVIL_HOST}`,
  `/..//${EVIL_HOST}`,
  `/./\\${EVIL_HOST}`,
  `https://${EVIL_HOST}`,
  `https:${EVIL_HOST}`,
  `http:/${EVIL_HOST}`,
  `https:/\\${EVIL_HOST}`,
  `javascript:alert(document.domain)`,
  `JaVaScRiPt:alert(1)`,
  `/javascript:alert(1)`,
  `data:text/html,<script>alert(1)</script>`,
  `／／${EVIL_HOST}`,
  `/／${EVIL_HOST}`,
  `/＼${EVIL_HOST}`,
  `/\u2215${EVIL_HOST}`,
  `/\u2044${EVIL_HOST}`,
  `//${EVIL_HOST}\u3002`,
  `/\u0000/${EVIL_HOST}`,
  `/\u007f/${EVIL_HOST}`,
  `/\u0085/${EVIL_HOST}`,
  `//${EVIL_HOST}@127.0.0.1`,
  `/@${EVIL_HOST}`,
  `${EVIL_HOST}`,
  "",
];

/**
 * Whether a Location (absolute or relative) stays on `origin`, read as a browser reads it:
 * the WHATWG URL parser, which drops tabs and newlines and treats `\` as `/`.
 */
export function staysOn(origin: string, location: string | null | undefined): boolean {
  if (location === null || location === undefined) return true;
  try {
    return new URL(location, origin).origin === origin;
  } catch {
    return false;
  }
}

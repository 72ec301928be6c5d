/**
 * The UI's security headers. Pages get a Content-Security-Policy with a fresh nonce per
 * request (proxy.ts): only scripts that carry it, and what they load, run — Next puts the
 * nonce on its own scripts when it finds it in the request's policy, and the self-monitoring
 * SDK is one of those bundles. No other site may frame a page. Styles may be inline (React
 * style attributes; a style cannot run code), images come from this origin or data: URLs.
 */
export function newNonce(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

export function contentSecurityPolicy(
  nonce: string,
  opts: { dev: boolean; https: boolean },
): string {
  return [
    "default-src 'self'",
    // React in development evaluates code for its stack frames; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(opts.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** Headers for every page besides the policy; HSTS only where the UI is served over https. */
export function securityHeaders(https: boolean): [string, string][] {
  const headers: [string, string][] = [
    ["X-Content-Type-Options", "nosniff"],
    // Issue and project URLs name an organization's internals: other sites learn nothing.
    ["Referrer-Policy", "same-origin"],
    // For browsers older than frame-ancestors.
    ["X-Frame-Options", "DENY"],
  ];
  if (https) headers.push(["Strict-Transport-Security", "max-age=31536000; includeSubDomains"]);
  return headers;
}

/**
 * Whether this request reached Faultline over https: the public URL says so, or a trusted
 * reverse proxy does (X-Forwarded-Proto, only with FAULTLINE_TRUST_PROXY=1).
 */
export function servedOverHttps(
  publicUrl: string | undefined,
  forwardedProto: string | null,
  trustProxy: boolean,
): boolean {
  if (publicUrl?.startsWith("https://")) return true;
  return trustProxy && forwardedProto?.split(",")[0]?.trim().toLowerCase() === "https";
}

import { type NextRequest, NextResponse } from "next/server";
import {
  contentSecurityPolicy,
  newNonce,
  securityHeaders,
  servedOverHttps,
} from "./src/security/headers";

/**
 * Next's request proxy (formerly middleware): every page gets a nonce-based
 * Content-Security-Policy and the other security headers (src/security/headers.ts). The
 * policy goes on the request too: Next reads the nonce from there for the scripts it renders.
 * Pages render per request already (the root layout awaits connection()).
 */
export function proxy(request: NextRequest) {
  const nonce = newNonce();
  const https = servedOverHttps(
    process.env.FAULTLINE_URL,
    request.headers.get("x-forwarded-proto"),
    process.env.FAULTLINE_TRUST_PROXY === "1",
  );
  const csp = contentSecurityPolicy(nonce, { dev: process.env.NODE_ENV !== "production", https });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", csp);
  for (const [name, value] of securityHeaders(https)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Pages only: the REST API answers JSON (an attachment download sets its own sandbox
  // policy), and static files carry no scripts of their own.
  matcher: [
    {
      source: "/((?!api/|_next/static|_next/image|favicon.ico|monitoring).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};

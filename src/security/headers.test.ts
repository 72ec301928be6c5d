import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, newNonce, securityHeaders, servedOverHttps } from "./headers";

/** The policy's shape and when HSTS is sent; the browser test (tests/e2e/data-safety) runs it. */
describe("security headers", () => {
  it("allows scripts only with the request's nonce, and no framing", () => {
    const nonce = newNonce();
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{24}$/);
    expect(newNonce()).not.toBe(nonce);
    const csp = contentSecurityPolicy(nonce, { dev: false, https: false });
    expect(csp).toContain(`script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(contentSecurityPolicy(nonce, { dev: false, https: true })).toContain(
      "upgrade-insecure-requests",
    );
  });

  it("sends HSTS only over https: the public URL, or a trusted proxy's word", () => {
    expect(securityHeaders(false).map(([k]) => k)).not.toContain("Strict-Transport-Security");
    expect(new Map(securityHeaders(true)).get("Strict-Transport-Security")).toMatch(
      /max-age=31536000/,
    );
    expect(servedOverHttps("https://faultline.example.com", null, false)).toBe(true);
    expect(servedOverHttps("http://10.0.0.5:3000", "https", false)).toBe(false);
    expect(servedOverHttps(undefined, "https, http", true)).toBe(true);
    expect(servedOverHttps(undefined, "http", true)).toBe(false);
  });
});

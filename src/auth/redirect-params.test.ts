import { describe, expect, it } from "vitest";
import { HOSTILE_REDIRECTS, staysOn } from "../../tests/helpers/hostile-redirects";
import { refuseUnsafeRedirect } from "./redirect-params";
import { safeNextPath } from "./schemas";

const ORIGIN = "http://faultline.test";
const BASE = `${ORIGIN}/api/auth`;

function json(path: string, body: unknown): Request {
  return new Request(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("refuseUnsafeRedirect", () => {
  it.each(HOSTILE_REDIRECTS.filter((v) => v !== "").map((v) => [JSON.stringify(v), v]))(
    "%s as a query or JSON redirect parameter: refused, or a path that stays on this site",
    async (_, value) => {
      // A percent-encoded `/%09/x` is a path here like any other; what could leave is refused.
      const want = safeNextPath(value) === value ? undefined : 400;
      if (want === undefined) expect(staysOn(ORIGIN, value)).toBe(true);
      const q = encodeURIComponent(value);
      const inQuery = await refuseUnsafeRedirect(
        new Request(`${BASE}/callback/sso-1?code=x&callbackURL=${q}`),
      );
      expect(inQuery?.status).toBe(want);
      for (const name of ["callbackURL", "errorCallbackURL", "newUserCallbackURL", "redirectTo"]) {
        const inBody = await refuseUnsafeRedirect(json("/sign-in/social", { [name]: value }));
        expect(inBody?.status, name).toBe(want);
      }
    },
  );

  it("names the parameter it refused", async () => {
    const res = await refuseUnsafeRedirect(
      json("/sign-in/social", { redirectTo: "//evil.example" }),
    );
    expect(await res?.json()).toEqual({
      message: "redirectTo must be a path on this site",
      code: "INVALID_REDIRECT",
    });
  });

  it("lets paths of this site through, and leaves the body for better-auth to read", async () => {
    expect(await refuseUnsafeRedirect(new Request(`${BASE}/get-session`))).toBeNull();
    const request = json("/sign-in/social", { provider: "sso-1", callbackURL: "/acme/issues" });
    expect(await refuseUnsafeRedirect(request)).toBeNull();
    expect(await request.json()).toEqual({ provider: "sso-1", callbackURL: "/acme/issues" });
  });

  it("reads a JSON body only up to 64 KiB", async () => {
    const big = json("/sign-out", { pad: "x".repeat(70 * 1024) });
    expect((await refuseUnsafeRedirect(big))?.status).toBe(413);
  });

  it("answers 404 for the emailed-link flows Faultline does not offer", async () => {
    for (const path of ["/reset-password/abc", "/verify-email", "/request-password-reset"])
      expect((await refuseUnsafeRedirect(new Request(`${BASE}${path}`)))?.status, path).toBe(404);
  });
});

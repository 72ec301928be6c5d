import { describe, expect, it } from "vitest";
import { isCrossOriginServerAction } from "./cross-origin-action";

const action = { "next-action": "7f00aa", host: "faultline.example:3000" };

describe("isCrossOriginServerAction", () => {
  it("refuses a fetch action whose Origin is another site, or not a URL, or null", () => {
    for (const origin of ["http://evil.example", "http://faultline.example", "evil", "null"]) {
      expect(isCrossOriginServerAction("POST", "/acme/issues", { ...action, origin })).toBe(true);
    }
  });

  it("refuses a form posted without JavaScript from another site", () => {
    const headers = {
      host: "faultline.example:3000",
      origin: "https://evil.example",
      "content-type": "multipart/form-data; boundary=x",
    };
    expect(isCrossOriginServerAction("POST", "/acme/settings/members", headers)).toBe(true);
  });

  it("lets the site's own pages through, behind a proxy by X-Forwarded-Host", () => {
    const own = { ...action, origin: "http://faultline.example:3000" };
    expect(isCrossOriginServerAction("POST", "/acme/issues", own)).toBe(false);
    const proxied = {
      "next-action": "7f00aa",
      host: "127.0.0.1:3000",
      "x-forwarded-host": "faultline.example, proxy.internal",
      origin: "https://faultline.example",
    };
    expect(isCrossOriginServerAction("POST", "/acme/issues", proxied)).toBe(false);
    expect(
      isCrossOriginServerAction("POST", "/acme/issues", {
        ...proxied,
        origin: "https://127.0.0.1:3000",
      }),
    ).toBe(true);
  });

  it("leaves other requests alone: no Origin, GETs, plain POSTs and route handlers", () => {
    expect(isCrossOriginServerAction("POST", "/acme/issues", action)).toBe(false);
    const foreign = { ...action, origin: "http://evil.example" };
    expect(isCrossOriginServerAction("GET", "/acme/issues", foreign)).toBe(false);
    expect(isCrossOriginServerAction("POST", "/api/auth/sign-in/email", foreign)).toBe(false);
    const json = {
      host: "faultline.example:3000",
      origin: "http://evil.example",
      "content-type": "application/json",
    };
    expect(isCrossOriginServerAction("POST", "/acme/issues", json)).toBe(false);
  });
});

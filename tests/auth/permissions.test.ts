import { describe, expect, it } from "vitest";
import { clientIpFromHeaders, normalizeIp, resolveClientIp } from "../../src/auth/client-ip";
import {
  ACTIONS,
  can,
  decideAccess,
  ORG_TOKEN_SCOPES,
  PERMISSIONS,
  PERSONAL_TOKEN_SCOPES,
  ROLES,
  SCOPE_ACTION,
  SCOPE_INCLUDES,
  SCOPES,
  scopesAllow,
} from "../../src/auth/permissions";
import { safeNextPath } from "../../src/auth/schemas";
import { isOrgSlug } from "../../src/orgs/slug";

describe("the permission table", () => {
  it("orders the roles: each may do everything the next one down may", () => {
    for (let i = 0; i < ROLES.length - 1; i++) {
      const higher = ROLES[i] as (typeof ROLES)[number];
      const lower = ROLES[i + 1] as (typeof ROLES)[number];
      for (const action of PERMISSIONS[lower])
        expect(can(higher, action), `${higher} ${action}`).toBe(true);
    }
  });

  it("matches the design's roles", () => {
    expect(ACTIONS.filter((a) => can("owner", a))).toEqual([...ACTIONS]);
    expect(can("admin", "members.write")).toBe(true);
    expect(can("admin", "owners.write")).toBe(false);
    expect(can("admin", "org.delete")).toBe(false);
    // Single sign-on decides who gets in: an owner's to set.
    expect(ROLES.filter((r) => can(r, "sso.write"))).toEqual(["owner"]);
    expect(ACTIONS.filter((a) => can("member", a))).toEqual([
      "org.read",
      "issues.write",
      "releases.write",
    ]);
    expect(ACTIONS.filter((a) => can("viewer", a))).toEqual(["org.read"]);
  });

  it("lets a viewer read with every read scope and write with none", () => {
    for (const [scope, action] of Object.entries(SCOPE_ACTION)) {
      expect(can("viewer", action), scope).toBe(scope.endsWith(":read"));
    }
  });

  it("tells 401, 404 and 403 apart, and never 403 to a non-member", () => {
    expect(decideAccess(false, undefined, "org.read")).toBe("unauthenticated");
    expect(decideAccess(false, "owner", "org.read")).toBe("unauthenticated");
    expect(decideAccess(true, undefined, "org.read")).toBe("not_found");
    expect(decideAccess(true, undefined, "org.delete")).toBe("not_found");
    expect(decideAccess(true, "viewer", "issues.write")).toBe("forbidden");
    expect(decideAccess(true, "member", "issues.write")).toBe("allowed");
  });
});

describe("token scopes", () => {
  it("includes each scope's reads in its writes, never more", () => {
    expect(scopesAllow(["event:write"], "event:read")).toBe(true);
    expect(scopesAllow(["event:read"], "event:write")).toBe(false);
    expect(scopesAllow(["project:write"], "project:releases")).toBe(false);
    expect(scopesAllow(["org:ci"], "project:releases")).toBe(true);
    expect(scopesAllow(["project:releases"], "org:ci")).toBe(true);
    expect(scopesAllow(["org:ci"], "org:read")).toBe(false);
    expect(scopesAllow([], "org:read")).toBe(false);
    // No scope grants a role action above its own: a token never outranks its scopes' needs.
    const rank = (s: (typeof SCOPES)[number]) =>
      ROLES.filter((r) => can(r, SCOPE_ACTION[s])).length;
    for (const held of SCOPES) {
      expect(SCOPE_INCLUDES[held], held).toContain(held);
      for (const need of SCOPE_INCLUDES[held])
        expect(rank(need), `${held} → ${need}`).toBeGreaterThanOrEqual(rank(held));
    }
  });

  it("offers personal tokens no organization-admin scope, and org tokens only org:ci", () => {
    for (const s of PERSONAL_TOKEN_SCOPES)
      expect(s).not.toMatch(/:admin$|^org:write$|^member:write$/);
    expect(ORG_TOKEN_SCOPES).toEqual(["org:ci"]);
  });
});

describe("client address", () => {
  it("uses the socket address unless a proxy is trusted", () => {
    expect(resolveClientIp("198.51.100.9", "203.0.113.1", false)).toBe("203.0.113.1");
    expect(resolveClientIp("198.51.100.9, 10.0.0.2", "10.0.0.1", true)).toBe("198.51.100.9");
    expect(resolveClientIp(undefined, "10.0.0.1", true)).toBe("10.0.0.1");
    expect(resolveClientIp(undefined, "::ffff:203.0.113.5", false)).toBe("203.0.113.5");
  });

  it("counts an IPv6 subscriber's /64 as one address", () => {
    expect(normalizeIp("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(normalizeIp("2001:DB8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(clientIpFromHeaders(new Headers({ "x-forwarded-for": "192.0.2.1" }))).toBe("192.0.2.1");
  });
});

describe("input edges", () => {
  it("keeps the after-sign-in path on this site", () => {
    expect(safeNextPath("/acme/settings/members")).toBe("/acme/settings/members");
    expect(safeNextPath("//evil.example/")).toBeUndefined();
    expect(safeNextPath("https://evil.example/")).toBeUndefined();
    expect(safeNextPath("/\\evil.example")).toBeUndefined();
  });

  it("accepts organization slugs that cannot shadow Faultline's routes", () => {
    expect(isOrgSlug("acme")).toBe(true);
    expect(isOrgSlug("acme-2")).toBe(true);
    for (const slug of [
      "setup",
      "sign-in",
      "api",
      "Acme",
      "-acme",
      "acme-",
      "a b",
      "favicon.ico",
    ]) {
      expect(isOrgSlug(slug), slug).toBe(false);
    }
  });
});

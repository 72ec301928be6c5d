import { describe, expect, it } from "vitest";
import { OriginMatcher } from "../ingest/accept/origins";
import { dataSettingsSchema } from "./data-settings";

/**
 * The settings form's input: what parses, and for what does not, a message that names the
 * entry (issue 24: "a message naming the problem, nothing changed").
 */
const VALID = {
  scrubData: "on",
  scrubDefaults: "on",
  sensitiveFields: "customer_ref\nloyalty-id",
  safeFields: "email\nrequest.headers.x-session-hint\nextra.*.token\ncontexts.'app.session'",
  allowedDomains: "https://shop.example.com\n*.example.org\nlocalhost:3000\n[::1]:8080",
  filterWebCrawlers: "on",
  filterErrorMessages: "*ResizeObserver loop*\nTypeError: [Nn]etwork*",
  filterReleases: "*-beta*",
  retentionDays: "30",
};

function problem(field: string, value: string): string | undefined {
  const parsed = dataSettingsSchema.safeParse({ ...VALID, [field]: value });
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

describe("data settings input", () => {
  it("parses lists one entry per line, and unchecked boxes as off", () => {
    const parsed = dataSettingsSchema.parse(VALID);
    expect(parsed.scrubData).toBe(true);
    expect(parsed.scrubIpAddresses).toBe(false);
    expect(parsed.filterLocalhost).toBe(false);
    expect(parsed.safeFields).toHaveLength(4);
    expect(parsed.allowedDomains).toEqual([
      "https://shop.example.com",
      "*.example.org",
      "localhost:3000",
      "[::1]:8080",
    ]);
    expect(parsed.retentionDays).toBe(30);
  });

  it("names the entry that does not parse", () => {
    expect(problem("safeFields", "request..headers")).toMatch(/"request\.\.headers".*empty part/);
    expect(problem("safeFields", "extra.tok*en")).toMatch(/"tok\*en" mixes/);
    expect(problem("safeFields", "contexts.'app")).toMatch(/quote is not closed/);
    expect(problem("filterErrorMessages", "Error: [abc")).toMatch(/"Error: \[abc".*not closed/);
    expect(problem("filterReleases", "1.0.[z-a]")).toMatch(/range z-a is reversed/);
    expect(problem("filterReleases", "v1\\")).toMatch(/lone \\/);
    expect(problem("allowedDomains", "https://shop.example.com/checkout/page")).toMatch(
      /"https:\/\/shop\.example\.com\/checkout\/page" is not a host pattern/,
    );
    expect(problem("allowedDomains", "shop example com")).toMatch(/not a host pattern/);
    expect(problem("allowedDomains", "example.com:99999")).toMatch(/port 99999/);
    expect(problem("sensitiveFields", "pass(word)")).toMatch(/"pass\(word\)"/);
    expect(problem("retentionDays", "0")).toMatch(/at least 1 day/);
  });
});

describe("allowed domains", () => {
  it("matches Sentry's patterns: exact hosts, subdomains, schemes, ports, *", () => {
    const m = new OriginMatcher(["https://shop.example.com", "*.example.org", "localhost:3000"]);
    expect(m.allows("https://shop.example.com")).toBe(true);
    expect(m.allows("http://shop.example.com")).toBe(false);
    expect(m.allows("https://shop.example.com:8443")).toBe(true);
    expect(m.allows("https://example.org")).toBe(true);
    expect(m.allows("https://a.b.example.org")).toBe(true);
    expect(m.allows("https://evilexample.org")).toBe(false);
    expect(m.allows("http://localhost:3000")).toBe(true);
    expect(m.allows("http://localhost:3001")).toBe(false);
    expect(m.allows("null")).toBe(false);
    expect(m.allows("https://evil.example.net")).toBe(false);
    expect(new OriginMatcher(["*"]).allowsAll).toBe(true);
    expect(new OriginMatcher([]).allows("https://shop.example.com")).toBe(false);
  });
});

import https from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OutboundPolicy } from "../../src/security/outbound";
import { MAX_BODY_BYTES, type ProbeRequest, probe } from "../../src/uptime/probe";
import { expiredCertificate, httpServer, listen, type TestServer } from "./servers";

/** The uptime check against real servers on loopback (src/uptime/probe.ts). */
const ALLOW: OutboundPolicy = {
  allowPrivate: () => true,
  allowedBy: "FAULTLINE_ALLOW_PRIVATE_WEBHOOKS",
};
const DENY: OutboundPolicy = {
  allowPrivate: () => false,
  allowedBy: "FAULTLINE_ALLOW_PRIVATE_WEBHOOKS",
};

function check(url: string, more: Partial<ProbeRequest> = {}): ProbeRequest {
  return {
    url,
    method: "GET",
    headers: [],
    body: null,
    timeoutMs: 2_000,
    expectedStatus: [[200, 299]],
    bodyContains: null,
    ...more,
  };
}

const seen: { url: string; headers: Record<string, unknown> }[] = [];
let site: TestServer;
let tlsSite: TestServer;

beforeAll(async () => {
  site = await httpServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    if (req.url === "/ok") return res.end("all good here");
    if (req.url === "/fail") {
      res.statusCode = 503;
      return res.end("down");
    }
    if (req.url === "/slow") return setTimeout(() => res.end("late"), 3_000).unref();
    if (req.url === "/trickle") {
      res.write("x");
      const t = setInterval(() => res.write("x"), 100);
      res.on("close", () => clearInterval(t));
      return;
    }
    if (req.url === "/huge") {
      // 50 MB answered as fast as the socket takes it.
      const chunk = Buffer.alloc(1024 * 1024, 97);
      let left = 50;
      const pump = () => {
        while (left > 0) {
          left--;
          if (!res.write(chunk)) return res.once("drain", pump);
        }
        res.end();
      };
      return pump();
    }
    if (req.url?.startsWith("/redirect-to/")) {
      res.statusCode = 302;
      res.setHeader("location", decodeURIComponent(req.url.slice("/redirect-to/".length)));
      return res.end();
    }
    if (req.url === "/loop") {
      res.statusCode = 301;
      res.setHeader("location", "/loop");
      return res.end();
    }
    res.statusCode = 404;
    res.end();
  });
  tlsSite = await listen(
    https.createServer(expiredCertificate(), (_req, res) => {
      seen.push({ url: "tls", headers: {} });
      res.end("secret");
    }),
  );
});

afterAll(async () => {
  await site?.close();
  await tlsSite?.close();
});

describe("uptime probe", () => {
  it("is up on an expected status, with timings and trace headers", async () => {
    const r = await probe(check(`${site.url}/ok`, { bodyContains: "good" }), ALLOW);
    expect(r).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(r.connectMs).not.toBeNull();
    expect(r.firstByteMs).not.toBeNull();
    const sent = seen.findLast((s) => s.url === "/ok");
    expect(sent?.headers.traceparent).toMatch(new RegExp(`^00-${r.traceId}-[0-9a-f]{16}-00$`));
    expect(sent?.headers["sentry-trace"]).toMatch(new RegExp(`^${r.traceId}-[0-9a-f]{16}-0$`));
  });

  it("fails on an unexpected status or a missing body substring", async () => {
    expect(await probe(check(`${site.url}/fail`), ALLOW)).toMatchObject({
      ok: false,
      statusCode: 503,
      error: "unexpected status 503",
    });
    const r = await probe(check(`${site.url}/ok`, { bodyContains: "<script>" }), ALLOW);
    expect(r.ok).toBe(false);
    expect(r.error).toContain("does not contain");
  });

  it("times out a slow server and one that trickles, within the timeout", async () => {
    for (const path of ["/slow", "/trickle"]) {
      const started = Date.now();
      const r = await probe(check(`${site.url}${path}`, { timeoutMs: 500 }), ALLOW);
      expect(r.ok).toBe(false);
      expect(r.error).toContain("timeout");
      expect(Date.now() - started).toBeLessThan(1_500);
    }
  });

  it("reads at most 1 MiB of a 50 MB answer", async () => {
    const before = process.memoryUsage().rss;
    const r = await probe(check(`${site.url}/huge`, { bodyContains: "zzz" }), ALLOW);
    expect(r.error).toContain("does not contain");
    expect(process.memoryUsage().rss - before).toBeLessThan(30 * MAX_BODY_BYTES);
  });

  it("refuses a loopback target unless private addresses are allowed", async () => {
    const count = seen.length;
    const r = await probe(check(`${site.url}/ok`), DENY);
    expect(r.ok).toBe(false);
    expect(r.error).toContain("FAULTLINE_ALLOW_PRIVATE_WEBHOOKS");
    // A name that resolves to loopback is refused after DNS, at connect time.
    const named = await probe(check(`http://localhost:${site.port}/ok`), DENY);
    expect(named.error).toContain("private or reserved address");
    expect(seen.length).toBe(count);
  });

  it("follows redirects, re-checking each hop, and at most 5", async () => {
    const ok = await probe(check(`${site.url}/redirect-to/${encodeURIComponent("/ok")}`), ALLOW);
    expect(ok).toMatchObject({ ok: true, statusCode: 200 });
    // A public-looking first hop is not needed: the policy is asked again at the second hop.
    let asked = 0;
    const firstOnly: OutboundPolicy = { allowPrivate: () => ++asked === 1, allowedBy: "X" };
    const target = encodeURIComponent(`http://127.0.0.2:${site.port}/ok`);
    const hop = await probe(check(`${site.url}/redirect-to/${target}`), firstOnly);
    expect(hop.ok).toBe(false);
    expect(hop.statusCode).toBe(302);
    expect(hop.error).toContain("127.0.0.2");
    const loop = await probe(check(`${site.url}/loop`), ALLOW);
    expect(loop.error).toBe("more than 5 redirects");
  });

  it("reports an expired self-signed certificate without sending the request", async () => {
    const count = seen.length;
    const r = await probe(check(tlsSite.url.replace("127.0.0.1", "localhost")), ALLOW);
    expect(r.ok).toBe(false);
    expect(r.error).toContain("expired on 2020-02-01");
    expect(r.certExpiresAt).toBe(Date.parse("2020-02-01T00:00:00Z"));
    expect(seen.length).toBe(count);
  });
});

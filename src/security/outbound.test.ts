import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardedAgent, guardOrigins, isBlockedAddress, type OutboundPolicy } from "./outbound";

/**
 * The one outbound guard, against a real local HTTP server: the address is checked when the
 * connection is made (so what a name resolves to then is what counts, DNS rebinding
 * included), for fetches given the guarded agent and for plain `fetch` calls to an origin
 * registered with guardOrigins (how better-auth's own calls to an identity provider go).
 */
const STRICT: OutboundPolicy = { allowPrivate: () => false, allowedBy: "TEST_ALLOW" };
const RELAXED: OutboundPolicy = { allowPrivate: () => true, allowedBy: "TEST_ALLOW" };

let server: http.Server;
let port = 0;
let hits = 0;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    hits += 1;
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function attempt(url: string, init: RequestInit = {}): Promise<string> {
  try {
    const res = await fetch(url, init);
    return `status ${res.status}`;
  } catch (err) {
    const cause = (err as { cause?: Error }).cause;
    return `refused: ${cause?.message ?? (err as Error).message}`;
  }
}

describe("the outbound address rule", () => {
  it("blocks NAT64, 6to4, mapped and private addresses for every caller", () => {
    for (const a of [
      "64:ff9b::a00:1",
      "64:ff9b::7f00:1",
      "2002:7f00:1::",
      "::ffff:127.0.0.1",
      "10.1.2.3",
      "fd00::1",
      "169.254.169.254",
    ])
      expect(isBlockedAddress(a), a).toBe(true);
    for (const a of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"])
      expect(isBlockedAddress(a), a).toBe(false);
  });

  it("refuses a private address when connecting, by literal or by a name that resolves to it", async () => {
    const agent = guardedAgent(STRICT);
    const before = hits;
    for (const host of ["127.0.0.1", "localhost"]) {
      const got = await attempt(`http://${host}:${port}/`, { dispatcher: agent } as RequestInit);
      expect(got, host).toMatch(/refused: .*private or reserved address \(set TEST_ALLOW=1/);
    }
    expect(hits).toBe(before);
    const allowed = await attempt(`http://localhost:${port}/`, {
      dispatcher: guardedAgent(RELAXED),
    } as RequestInit);
    expect(allowed).toBe("status 200");
  });

  it("guards plain fetch calls to a registered origin, and only those", async () => {
    const before = hits;
    guardOrigins([`http://localhost:${port}/.well-known/openid-configuration`], STRICT);
    expect(await attempt(`http://localhost:${port}/token`)).toMatch(/refused: .*TEST_ALLOW/);
    expect(hits).toBe(before);
    // Another origin (the same server by its address) is not the guard's business here.
    expect(await attempt(`http://127.0.0.1:${port}/`)).toBe("status 200");
  });
});

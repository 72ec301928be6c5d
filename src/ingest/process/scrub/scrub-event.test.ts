import { describe, expect, it } from "vitest";
import { realNodeErrorEvent } from "../../../../tests/helpers/envelopes";
import { fixture } from "../../../../tests/helpers/fixtures";
import { frameEnvelope } from "../../accept/frame";
import { normalizeEvent } from "../normalize";
import { prepareEvent } from "../prepare-event";
import { processingFor, type SettingsByProject } from "../project-settings";
import { DEFAULT_SCRUB_SETTINGS, type ScrubSettings } from "./config";

/**
 * Scrubbing on the real SDK's events: what leaves the stored bytes, what stays, what the
 * `_meta` says, and that only the changed members of the SDK's bytes are rewritten.
 */
// biome-ignore lint/suspicious/noExplicitAny: parsed SDK events, edited freely below
type Loose = any;

const CARD = "4111 1111 1111 1111";
const BEARER = "Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.dG9rZW4";
const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq0\n-----END RSA PRIVATE KEY-----";

function httpServerEvent(): Record<string, unknown> {
  const framed = frameEnvelope(fixture("node-http-server-1").body);
  if (!framed.ok) throw new Error("fixture");
  const item = framed.value.items.find((i) => i.header.type === "event");
  if (!item) throw new Error("fixture has no event");
  return JSON.parse(item.payload.toString());
}

function prepare(event: unknown, scrub: Partial<ScrubSettings> = {}) {
  const settings: SettingsByProject = new Map([
    [
      1,
      {
        scrub: { ...DEFAULT_SCRUB_SETTINGS, ...scrub },
        filters: {
          browserExtensions: false,
          localhost: false,
          webCrawlers: false,
          legacyBrowsers: false,
          errorMessages: [],
          releases: [],
        },
      },
    ],
  ]);
  const json = Buffer.from(typeof event === "string" ? event : JSON.stringify(event));
  const prepared = prepareEvent(
    json,
    { receivedAt: Date.now(), sentAt: undefined },
    processingFor(1, settings),
  );
  if (prepared.kind !== "event") throw new Error(`not an event: ${prepared.kind}`);
  const stored = Array.isArray(prepared.json) ? Buffer.concat(prepared.json) : prepared.json;
  return { ...prepared, input: json, stored: stored.toString("utf8") };
}

function withSecrets() {
  const event = httpServerEvent() as Loose;
  event.request.headers.authorization = BEARER;
  event.request.headers.Cookie = "session=abc123secretcookie; theme=dark";
  event.request.headers["X-Api-Key"] = "k-9f8e7d6c5b4a";
  event.request.data = "username=alice&password=hunter2hunter2&card=ok";
  event.request.url = "http://127.0.0.1:33485/boom?order=9001&access_token=tok-abcdef123456";
  event.breadcrumbs = {
    values: [
      {
        category: "http",
        data: { url: "https://user:pa55word@db.internal/x", method: "GET", apiKey: "ak-123456789" },
      },
      { category: "console", message: `calling with ${BEARER}` },
    ],
  };
  event.extra = {
    deploy_key: PEM,
    order: { id: 42, client_secret: "cs_live_123456789" },
    // A second card after the first: every string is checked, not only the first found.
    form: { card: "5555 5555 5555 4444" },
  };
  event.exception.values[0].value = `charge failed for card ${CARD}`;
  return event;
}

const SECRETS = [
  "eyJhbGciOiJIUzI1NiJ9",
  "abc123secretcookie",
  "k-9f8e7d6c5b4a",
  "hunter2hunter2",
  "tok-abcdef123456",
  "pa55word",
  "ak-123456789",
  "MIIEowIBAAKCAQEA7bq0",
  "cs_live_123456789",
  "4111 1111 1111 1111",
  "5555 5555 5555 4444",
];

describe("scrubbing an event before it is stored", () => {
  it("leaves no secret in the stored bytes, the parsed event or the normalized one", () => {
    const { stored, raw } = prepare(withSecrets());
    for (const secret of SECRETS) expect(stored, secret).not.toContain(secret);
    expect(stored).toContain("[Filtered]");
    const normalized = JSON.stringify(
      normalizeEvent(JSON.parse(stored), { receivedAt: Date.now() }),
    );
    for (const secret of SECRETS) expect(normalized, secret).not.toContain(secret);
    // What ingest groups and summarizes is the scrubbed event too.
    expect(JSON.stringify(raw)).not.toContain("hunter2hunter2");
    expect(JSON.stringify(raw)).not.toContain("4111 1111");
  });

  it("keeps what is not secret, and says in _meta what was filtered and why", () => {
    const { stored } = prepare(withSecrets());
    const event = JSON.parse(stored);
    expect(event.request.headers.authorization).toBe("[Filtered]");
    expect(event.request.headers.Cookie).toBe("[Filtered]");
    expect(event.request.headers["user-agent"]).toBe("node");
    expect(event.request.data).toBe("username=alice&password=[Filtered]&card=ok");
    expect(event.request.url).toBe(
      "http://127.0.0.1:33485/boom?order=9001&access_token=[Filtered]",
    );
    expect(event.breadcrumbs.values[0].data.url).toBe("https://user:[Filtered]@db.internal/x");
    expect(event.breadcrumbs.values[1].message).toBe("calling with Bearer [Filtered]");
    expect(event.extra.order).toEqual({ id: 42, client_secret: "[Filtered]" });
    expect(event.exception.values[0].value).toBe("charge failed for card [Filtered]");
    expect(event._meta.request.headers.authorization[""]).toEqual({
      rem: [["@password:filter", "s", 0, 10]],
      len: BEARER.length,
    });
    expect(event._meta.exception.values["0"].value[""].rem).toEqual([
      ["@creditcard:filter", "s", 23, 33],
    ]);
    expect(event._meta.extra.deploy_key[""].rem[0][0]).toBe("@pemkey:filter");
    expect(event._meta.breadcrumbs.values["0"].data.url[""].rem[0][0]).toBe("@urlauth:filter");
  });

  it("rewrites only the request when that is all that changed, keeping the SDK's other bytes", () => {
    const event = httpServerEvent() as Loose;
    event.request.headers.authorization = BEARER;
    const { stored, input } = prepare(event);
    const text = input.toString();
    const at = text.indexOf('"request":');
    expect(stored.slice(0, at)).toBe(text.slice(0, at));
    expect(stored).toMatch(/"_meta":\{"request":/);
    expect(JSON.parse(stored).modules).toEqual(event.modules);
  });

  it("stores the SDK's bytes untouched when there is nothing to scrub", () => {
    const event = realNodeErrorEvent();
    const { stored, input } = prepare(event);
    expect(stored).toBe(input.toString());
  });

  it("keeps safe fields, adds the project's sensitive fields, and can be turned off", () => {
    const event = withSecrets() as Loose;
    event.extra.customer_ref = "CUST-991";
    const safe = JSON.parse(
      prepare(event, {
        safeFields: ["authorization", "extra.order.client_secret"],
        sensitiveFields: ["customer_ref"],
      }).stored,
    );
    expect(safe.request.headers.authorization).toBe(BEARER);
    expect(safe.extra.order.client_secret).toBe("cs_live_123456789");
    expect(safe.extra.customer_ref).toBe("[Filtered]");
    expect(safe._meta.extra.customer_ref[""].rem[0][0]).toBe("strip-fields");

    const off = prepare(withSecrets(), { scrubData: false });
    expect(off.stored).toBe(off.input.toString());
  });

  it("removes IP addresses only when the project asks", () => {
    const event = httpServerEvent() as Loose;
    event.user = { id: "u1", ip_address: "203.0.113.9" };
    event.request.env = { REMOTE_ADDR: "203.0.113.9" };
    expect(prepare(event).stored).toContain("203.0.113.9");
    const scrubbed = JSON.parse(prepare(event, { scrubIpAddresses: true }).stored);
    expect(scrubbed.user).toEqual({ id: "u1", ip_address: null });
    expect(scrubbed.request.env.REMOTE_ADDR).toBeNull();
    expect(scrubbed._meta.user.ip_address[""].rem).toEqual([["@ip:remove", "x"]]);
  });

  it("scrubs headers sent as pairs, JSON request bodies and non-ASCII events", () => {
    const event = httpServerEvent() as Loose;
    event.request.headers = [
      ["Authorization", "Basic dXNlcjpwYXNz"],
      ["Accept", "*/*"],
    ];
    event.request.data = JSON.stringify({ user: "zoë", password: "s3cr3t-pw" });
    event.message = "Grüße aus Köln";
    const stored = JSON.parse(prepare(event).stored);
    expect(stored.request.headers).toEqual([
      ["Authorization", "[Filtered]"],
      ["Accept", "*/*"],
    ]);
    expect(JSON.parse(stored.request.data)).toEqual({ user: "zoë", password: "[Filtered]" });
    expect(stored.message).toBe("Grüße aus Köln");

    const utf8 = httpServerEvent() as Loose;
    utf8.request.headers.cookie = "sid=1";
    utf8.server_name = "sérveur-ünïcode";
    const out = prepare(utf8);
    expect(JSON.parse(out.stored).server_name).toBe("sérveur-ünïcode");
    expect(JSON.parse(out.stored).request.headers.cookie).toBe("[Filtered]");
  });

  it("leaves timestamps, ids and other long numbers alone", () => {
    const event = httpServerEvent() as Loose;
    event.extra = {
      at_ms: 1795611578789,
      order_no: "1234567890123",
      trace: "3450886744a4474caee680932a1e32d0",
    };
    const { stored, input } = prepare(event);
    expect(stored).toBe(input.toString());
  });

  it("drops a _meta the SDK sent: it would claim filtering that did not happen", () => {
    const event = realNodeErrorEvent() as Record<string, unknown>;
    event._meta = { message: { "": { rem: [["@password:filter", "s", 0, 10]] } } };
    const stored = JSON.parse(prepare(event).stored);
    expect(stored._meta).toBeUndefined();
  });
});

describe("an event nested too deep to serialize again", () => {
  // JSON.parse reads any depth, JSON.stringify recurses: a whole rewrite (here for a timestamp
  // out of range) of an event with 100,000 levels under `extra` threw RangeError, and the
  // envelope failed to process (seen by tests/fuzz.test.ts once a case's date went stale).
  const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
  for (const [what, edit] of [
    [
      "a rewrite of the whole event",
      (e: Loose) => {
        e.timestamp = 1_000_000;
      },
    ],
    [
      "a splice of the changed member",
      (e: Loose) => {
        e.extra.password = "hunter2hunter2";
      },
    ],
  ] as const) {
    it(`is stored with the excess depth cut, for ${what}`, () => {
      const event = httpServerEvent() as Loose;
      event.extra = { note: "kept" };
      edit(event);
      const text = JSON.stringify(event).replace('"extra":{', `"extra":{"deep":${deep(100_000)},`);
      const { stored } = prepare(text);
      const parsed = JSON.parse(stored);
      expect(parsed.extra.note).toBe("kept");
      expect(JSON.stringify(parsed.extra.deep)).toContain("[…]");
      expect(stored).not.toContain("hunter2hunter2");
    });
  }
});

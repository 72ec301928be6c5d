import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { frameEnvelope } from "../../src/ingest/accept/frame";
import {
  type DataSettings,
  DEFAULT_DATA_SETTINGS,
  updateDataSettings,
} from "../../src/projects/data-settings";
import { testDialects } from "../helpers/databases";
import { buildEnvelope, newEventId } from "../helpers/envelopes";
import { fixture } from "../helpers/fixtures";
import { openPipeline, type Pipeline } from "../helpers/pipeline";

/**
 * Inbound filters (issue 24): the real browser SDK's error event, varied so that each of
 * Sentry's filters has an event it matches and one it does not. A matched event is not
 * stored and is counted `filtered` with Sentry's reason; with the filters off, all are kept.
 */
const CHROME =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const IE9 = "Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

// biome-ignore lint/suspicious/noExplicitAny: the SDK's event, edited freely below
type Loose = any;

function browserEvent(): Loose {
  const framed = frameEnvelope(fixture("browser-capture-exception-1").body);
  if (!framed.ok) throw new Error("fixture");
  const item = framed.value.items.find((i) => i.header.type === "event");
  if (!item) throw new Error("fixture has no event");
  return JSON.parse(item.payload.toString());
}

function variant(edit: (e: Loose) => void): { id: string; body: Buffer } {
  const e = browserEvent();
  e.event_id = newEventId();
  e.timestamp = Date.now() / 1000;
  e.request = { url: "https://shop.example.com/checkout", headers: { "User-Agent": CHROME } };
  e.user = { id: "u-1", ip_address: "203.0.113.7" };
  e.release = "shop@2.4.0";
  edit(e);
  return {
    id: e.event_id,
    body: buildEnvelope([{ type: "event", payload: e }], { event_id: e.event_id }),
  };
}

const top = (e: Loose) => e.exception.values[0];

/** reason → [events it must filter, events it must keep]. */
const CASES = {
  "browser-extensions": [
    [
      variant((e) => {
        top(e).value = "Extension context invalidated.";
      }),
      variant((e) => {
        top(e).stacktrace.frames.push({
          filename: "chrome-extension://abcdef/content.js",
          function: "inject",
        });
      }),
    ],
    [variant((e) => (top(e).value = "Cannot read properties of undefined (reading 'total')"))],
  ],
  localhost: [
    [
      variant((e) => (e.request.url = "http://localhost:3000/checkout")),
      variant((e) => (e.user.ip_address = "127.0.0.1")),
    ],
    [variant((e) => (e.request.url = "https://localhost.example.com/"))],
  ],
  "web-crawlers": [
    [variant((e) => (e.request.headers["User-Agent"] = GOOGLEBOT))],
    [
      variant(
        (e) => (e.request.headers["User-Agent"] = "Slackbot 1.0 (+https://api.slack.com/robots)"),
      ),
    ],
  ],
  "legacy-browsers": [
    [variant((e) => (e.request.headers["User-Agent"] = IE9))],
    [
      variant(
        (e) =>
          (e.request.headers["User-Agent"] =
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"),
      ),
    ],
  ],
  "error-message": [
    [
      variant((e) => {
        top(e).type = "Error";
        top(e).value = "ResizeObserver loop completed with undelivered notifications.";
      }),
      variant((e) => {
        top(e).value = "Network request failed: ECONNRESET";
      }),
    ],
    [variant((e) => (top(e).value = "ResizeObservers are fine"))],
  ],
  "release-version": [
    [variant((e) => (e.release = "shop@2.5.0-beta.3"))],
    [variant((e) => (e.release = "shop@2.5.0"))],
  ],
} as const;

const ALL_ON: DataSettings = {
  ...DEFAULT_DATA_SETTINGS,
  filters: {
    browserExtensions: true,
    localhost: true,
    webCrawlers: true,
    legacyBrowsers: true,
    errorMessages: ["Error: ResizeObserver loop*", "*ECONNRESET"],
    releases: ["*-beta*"],
  },
};

describe.each(await testDialects())("inbound filters on $name", ({ create }) => {
  let p: Pipeline;
  beforeEach(async () => {
    p = await openPipeline(create);
  });
  afterEach(async () => {
    await p.close();
  });

  const setFilters = (settings: DataSettings) =>
    updateDataSettings(p.db, { id: p.projectId, organizationId: 1, slug: "default" }, settings, {
      userId: null,
      label: "test",
      ip: "127.0.0.1",
    });

  const storedIds = async () =>
    new Set(
      (await p.db.kysely.selectFrom("events").select("event_id").execute()).map((r) => r.event_id),
    );

  it("keeps each filter's non-matching events, and counts the others with Sentry's reasons", async () => {
    await setFilters(ALL_ON);
    for (const [matching, kept] of Object.values(CASES))
      for (const v of [...matching, ...kept]) await p.send(v.body);
    // A crawler's page load (a transaction) is filtered too, counted as a transaction.
    const txn = JSON.parse(fixture("browser-pageload-1").body.toString().split("\n")[2] as string);
    txn.event_id = newEventId();
    txn.request = { url: "https://shop.example.com/", headers: { "User-Agent": GOOGLEBOT } };
    await p.send(
      buildEnvelope([{ type: "transaction", payload: txn }], { event_id: txn.event_id }),
    );
    await p.worker.drain();

    const stored = await storedIds();
    for (const [reason, [matching, kept]] of Object.entries(CASES)) {
      for (const v of matching) expect(stored.has(v.id), `${reason} filters ${v.id}`).toBe(false);
      for (const v of kept) expect(stored.has(v.id), `${reason} keeps ${v.id}`).toBe(true);
      expect(await p.quantity("error", "filtered", reason), reason).toBe(matching.length);
    }
    expect(await p.quantity("transaction", "filtered", "web-crawlers")).toBe(1);
    expect(await p.quantity("error", "accepted", "")).toBe(Object.values(CASES).length);
    expect(await p.db.kysely.selectFrom("spans").selectAll().execute()).toEqual([]);
  });

  it("stores them all with every filter off", async () => {
    await setFilters({
      ...DEFAULT_DATA_SETTINGS,
      filters: {
        ...ALL_ON.filters,
        browserExtensions: false,
        localhost: false,
        webCrawlers: false,
        legacyBrowsers: false,
        errorMessages: [],
        releases: [],
      },
    });
    const all = Object.values(CASES).flatMap(([m, k]) => [...m, ...k]);
    for (const v of all) await p.send(v.body);
    await p.worker.drain();
    expect((await storedIds()).size).toBe(all.length);
    expect((await p.outcomes()).filter((o) => o.outcome === "filtered")).toEqual([]);
  });
});

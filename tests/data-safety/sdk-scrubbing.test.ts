import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/connection";
import { decodeEventBlock } from "../../src/events/payload";
import { actionId, Client } from "../auth/http-client";
import { ROOT, type RunningServer, startServer, waitFor } from "../helpers/server";

/**
 * Server-side scrubbing end to end (issue 24): the real @sentry/node with sendDefaultPii and
 * the HTTP server it instruments receives a checkout with an Authorization header, a session
 * cookie, a password field and a card number (tests/clients/node-pii-server.mjs). With the
 * project's defaults, none of them is anywhere in the data directory's database files (read
 * as bytes, and every stored payload decompressed), nor in the API or the event page, which
 * show [Filtered] and why. With scrubbing turned off in the settings, the same secrets are
 * stored: the checks can fail.
 */
const ACTIONS = {
  setUp: actionId("app/(auth)/setup/actions.ts", "setUp"),
  saveDataSettings: actionId("app/[org]/projects/[slug]/actions.ts", "saveDataSettings"),
};
const OWNER = { name: "Olive Owner", email: "olive@example.com", password: "owner password 1" };

let server: RunningServer;
let owner: Client;

beforeAll(async () => {
  server = await startServer();
  owner = new Client(server.url);
  const done = await owner.action("/setup", ACTIONS.setUp, {
    ...OWNER,
    orgName: "Acme",
    orgSlug: "acme",
  });
  expect(done.status, done.body.slice(0, 300)).toBe(200);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

afterEach((context) => {
  if (context.task.result?.state === "fail") console.log(server?.logs().slice(-4000));
});

function newSecrets() {
  const tag = crypto.randomBytes(6).toString("hex");
  return {
    PII_TOKEN: `tok-${tag}-bearer`,
    PII_COOKIE: `ck-${tag}-session`,
    PII_PASSWORD: `pw-${tag}-hunter2`,
    // Luhn-valid; the last four vary per run, the first digits say Visa.
    PII_CARD: luhnCard(`4111 1111 1111 ${String(crypto.randomInt(100, 999))}`),
  };
}

function luhnCard(prefix: string): string {
  for (let d = 0; d <= 9; d++) {
    const digits = (prefix + d).replace(/ /g, "");
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let n = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) n = n * 2 > 9 ? n * 2 - 9 : n * 2;
      sum += n;
    }
    if (sum % 10 === 0) return prefix + d;
  }
  throw new Error("unreachable");
}

/** The secrets as they could appear: the card also without its spaces. */
function needles(secrets: ReturnType<typeof newSecrets>): string[] {
  return [...Object.values(secrets), secrets.PII_CARD.replace(/ /g, "")];
}

async function runClient(secrets: ReturnType<typeof newSecrets>): Promise<void> {
  const child = spawn(process.execPath, [path.join(ROOT, "tests/clients/node-pii-server.mjs")], {
    cwd: ROOT,
    env: { ...process.env, SENTRY_DSN: server.dsn, ...secrets },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d) => {
    err += d;
  });
  const code = await new Promise((resolve) => child.on("exit", resolve));
  expect(code, err).toBe(0);
}

interface ApiIssue {
  id: string;
  count: string;
  metadata: { value: string };
}

/** The checkout issue and its latest event, once it holds `count` events. */
async function checkoutEvent(count: number) {
  return waitFor(
    async () => {
      const issues = await server.api<ApiIssue[]>("/api/0/projects/acme/default/issues/");
      const issue = issues.body.find((i) =>
        i.metadata.value.startsWith("payment declined for card"),
      );
      if (!issue || Number(issue.count) < count) return undefined;
      const latest = await server.api<Record<string, unknown>>(
        `/api/0/issues/${issue.id}/events/latest/`,
      );
      return { issue, event: latest.body, text: JSON.stringify(latest.body) };
    },
    30_000,
    "the checkout error to be stored",
  );
}

/** Every byte of the data directory's database, and every stored event payload decompressed. */
async function storedBytes(): Promise<string> {
  const parts: string[] = [];
  for (const name of fs.readdirSync(server.dataDir)) {
    if (name.startsWith("faultline.db"))
      parts.push(fs.readFileSync(path.join(server.dataDir, name)).toString("latin1"));
  }
  const db = openDb(`file:${path.join(server.dataDir, "faultline.db")}`, { poolSize: 1 });
  try {
    for (const b of await db.kysely.selectFrom("event_blocks").select("payload").execute())
      parts.push(decodeEventBlock(b.payload).toString("utf8"));
    for (const e of await db.kysely.selectFrom("events").select("payload").execute())
      if (e.payload[0] === 0x07)
        parts.push(zlib.brotliDecompressSync(e.payload.subarray(1)).toString("utf8"));
  } finally {
    await db.close();
  }
  return parts.join("\n");
}

function queueBytes(): string {
  return fs
    .readdirSync(server.dataDir)
    .filter((n) => /\.queue\.\d+\.log$/.test(n))
    .map((n) => fs.readFileSync(path.join(server.dataDir, n)).toString("latin1"))
    .join("\n");
}

describe("@sentry/node with sendDefaultPii → Faultline", () => {
  it("stores no secret by default: not in the database files, the API or the page", async () => {
    const secrets = newSecrets();
    await runClient(secrets);
    const { issue, event, text } = await checkoutEvent(1);

    for (const secret of needles(secrets)) expect(text, `API has ${secret}`).not.toContain(secret);
    expect(text).toContain("[Filtered]");
    const extra = (
      event.context as {
        request: { headers: Record<string, string>; form: Record<string, string> };
      }
    ).request;
    expect(extra.headers.authorization).toBe("[Filtered]");
    expect(extra.headers.cookie).toBe("[Filtered]");
    expect(extra.form.password).toBe("[Filtered]");
    expect(extra.form.username).toBe("alice");
    expect(JSON.stringify(event._meta)).toContain("@creditcard:filter");

    const page = await owner.get(`/acme/issues/${issue.id}`);
    expect(page.status).toBe(200);
    for (const secret of needles(secrets))
      expect(page.body, `page has ${secret}`).not.toContain(secret);
    expect(page.body).toContain("[Filtered]");
    expect(page.body).toContain("Changed on ingest");
    expect(page.body).toMatch(/holds a credit card number/);

    const bytes = await storedBytes();
    for (const secret of needles(secrets))
      expect(bytes.includes(secret), `database has ${secret}`).toBe(false);
    // The envelope as sent waited in the queue only until processed.
    await waitFor(
      () => !needles(secrets).some((s) => queueBytes().includes(s)),
      20_000,
      "the queue segment to go",
    );
  }, 90_000);

  it("stores them as sent when the project turns scrubbing off (so the checks above can fail)", async () => {
    const off = await owner.action(
      "/acme/projects/default",
      ACTIONS.saveDataSettings,
      {
        org: "acme",
        project: "default",
        sensitiveFields: "",
        safeFields: "",
        allowedDomains: "*",
        filterErrorMessages: "",
        filterReleases: "",
        retentionDays: "90",
      },
      { withState: true },
    );
    expect(off.body).toMatch(/Saved \(scrubData, scrubDefaults/);
    const secrets = newSecrets();
    await runClient(secrets);
    const { text } = await checkoutEvent(2);
    for (const secret of [
      secrets.PII_TOKEN,
      secrets.PII_COOKIE,
      secrets.PII_PASSWORD,
      secrets.PII_CARD,
    ])
      expect(text, `API lacks ${secret}`).toContain(secret);
    const bytes = await storedBytes();
    for (const secret of [
      secrets.PII_TOKEN,
      secrets.PII_COOKIE,
      secrets.PII_PASSWORD,
      secrets.PII_CARD,
    ])
      expect(bytes.includes(secret), `database lacks ${secret}`).toBe(true);
  }, 90_000);
});

import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import { buildEnvelope, realNodeErrorEvent, variant } from "./helpers/envelopes";
import { type PgCluster, pgClusterAvailable, startPgCluster } from "./helpers/pg-cluster";
import { API_TOKEN, type RunningServer, startServer, waitFor } from "./helpers/server";

/**
 * Faultline on PostgreSQL survives its database going away under load (issue 30, point 0): a
 * restart (`pg_ctl stop -m fast`, which ends every session with 57P01), a crash (`-m
 * immediate`), an outage of a minute (connections refused), and one session killed by
 * `pg_terminate_backend` in the middle of a worker's transaction; and a process started while
 * the database is down waits for it. Every process stays up (the same pid, never restarted),
 * ingest answers 503 with Retry-After while it cannot commit and never 200, the web answers
 * 5xx instead of hanging or dying, and once the database is back everything recovers by
 * itself and every acknowledged event is stored, once.
 *
 * The cluster is the test's own (`initdb` in a temporary folder, a free port): the shared
 * server other tests use is never stopped. One cluster serves every case, each case in a
 * database of its own.
 */
const usable = pgClusterAvailable() || process.env.CI === "true";
const base = realNodeErrorEvent();
let cluster: PgCluster | undefined;
const servers: RunningServer[] = [];
const loads: Load[] = [];

beforeAll(async () => {
  if (usable) cluster = await startPgCluster();
});

// A case that failed midway leaves its load running; it must not run into the next case.
afterEach(async () => {
  await Promise.all(loads.splice(0).map((l) => l.stop()));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  cluster?.destroy();
});

/** One answer the load got: when its request was sent and answered, and how. */
interface Answer {
  sentAt: number;
  answeredAt: number;
  status: number;
  retryAfter: string | null;
  eventId: string;
}

/**
 * A bounded stream of real SDK envelopes: a few senders, one request at a time each, pausing
 * after a refusal the way an SDK backs off (shorter, to keep the test short).
 */
class Load {
  readonly answers: Answer[] = [];
  private running = true;
  private readonly senders: Promise<void>[];

  constructor(server: RunningServer, senders = 6) {
    const dsn = new URL(server.dsn);
    const url = `${server.url}/api/${dsn.pathname.slice(1)}/envelope/?sentry_key=${dsn.username}`;
    this.senders = Array.from({ length: senders }, (_, n) => this.send(url, n));
    loads.push(this);
  }

  private async send(url: string, n: number): Promise<void> {
    for (let i = 0; this.running; i++) {
      const event = variant(base, { path: `p${(n + i) % 5}` });
      const sentAt = Date.now();
      let status = 0;
      let retryAfter: string | null = null;
      try {
        const res = await fetch(url, {
          method: "POST",
          body: new Uint8Array(buildEnvelope([{ type: "event", payload: event }])),
          signal: AbortSignal.timeout(30_000),
        });
        status = res.status;
        retryAfter = res.headers.get("retry-after");
        await res.arrayBuffer();
      } catch {
        // No answer at all (status 0): the test fails on it below.
      }
      this.answers.push({
        sentAt,
        answeredAt: Date.now(),
        status,
        retryAfter,
        eventId: event.event_id as string,
      });
      await new Promise((r) => setTimeout(r, status === 200 ? 2 : 100));
    }
  }

  acknowledged(): string[] {
    return this.answers.filter((a) => a.status === 200).map((a) => a.eventId);
  }

  /** 200s answered to requests sent after `since`. */
  acceptedSince(since: number): number {
    return this.answers.filter((a) => a.status === 200 && a.sentAt > since).length;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.senders);
  }
}

/**
 * The web's answers, bounded: an API read and a page that reads the database (sign-in asks
 * whether setup is needed). Status 0 when nothing came back; `page` says whether the page's
 * answer was an HTML document (Next's error page when it failed).
 */
async function webAnswers(
  server: RunningServer,
): Promise<{ api: number; page: number; html: boolean }> {
  const get = async (pathname: string, headers: Record<string, string> = {}) => {
    try {
      const res = await fetch(`${server.url}${pathname}`, {
        headers,
        redirect: "manual",
        signal: AbortSignal.timeout(20_000),
      });
      return { status: res.status, body: await res.text() };
    } catch {
      return { status: 0, body: "" };
    }
  };
  const [api, page] = await Promise.all([
    get("/api/0/projects/default/default/keys/", { authorization: `Bearer ${API_TOKEN}` }),
    get("/sign-in"),
  ]);
  return { api: api.status, page: page.status, html: page.body.includes("<html") };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Takes the cluster down (`stop`) and brings it back (`start`) under load; checks that while
 * it was down ingest refused with 503 and Retry-After, and acknowledged nothing, and that it
 * accepts again afterwards without anyone restarting it.
 */
async function outage(
  load: Load,
  web: RunningServer | undefined,
  stop: () => void,
  downMs: number,
): Promise<void> {
  const db = cluster as PgCluster;
  stop();
  const down = Date.now();
  let up: number | undefined;
  try {
    await sleep(downMs / 2);
    if (web) {
      // Answered (an API error, Next's error page), neither hanging nor dropped.
      const answers = await webAnswers(web);
      expect(answers.api).toBe(503);
      expect(answers.page).toBeGreaterThanOrEqual(500);
      expect(answers.html).toBe(true);
    }
    await sleep(downMs / 2);
  } finally {
    // Up again whatever failed, so that the next case finds its database.
    up = Date.now();
    db.start();
  }
  // Sent while the database was down and answered before it came back: refused, all of them.
  const during = load.answers.filter((a) => a.sentAt > down + 200 && a.answeredAt < up);
  expect(during.length).toBeGreaterThan(0);
  expect(during.filter((a) => a.status !== 503)).toEqual([]);
  expect(during.every((a) => Number(a.retryAfter) > 0)).toBe(true);
  await waitFor(() => load.acceptedSince(up) >= 20, 30_000, "ingest to accept again");
  if (web) {
    await waitFor(
      async () => {
        const answers = await webAnswers(web);
        return answers.api === 200 && answers.page < 400;
      },
      30_000,
      "the web to answer again",
    );
  }
}

/** Waits for the queue to drain, then checks every acknowledged event is stored, once. */
async function expectAllStored(database: string, load: Load, projectId: number): Promise<void> {
  const db = cluster as PgCluster;
  const acknowledged = load.acknowledged();
  expect(load.answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
  await waitFor(
    async () =>
      (await db.query<{ n: number }>(database, "select count(*)::int as n from ingest_queue"))[0]
        ?.n === 0,
    90_000,
    "the queue to drain",
  );
  const rows = await db.query<{ event_id: string }>(
    database,
    `select event_id from events where project_id = ${projectId}`,
  );
  const stored = new Set(rows.map((r) => r.event_id));
  expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  // Never half stored and then stored again: each event counted once on its issue.
  const [sums] = await db.query<{ seen: number }>(
    database,
    `select coalesce(sum(times_seen), 0)::int as seen from issues where project_id = ${projectId}`,
  );
  expect(sums?.seen).toBe(rows.length);
  const refused = load.answers.filter((a) => a.status === 503).length;
  console.log(
    `[pg-restart] ${database}: ${acknowledged.length} acknowledged and all stored, ${refused} refused with 503`,
  );
}

function projectOf(server: RunningServer): number {
  return Number(new URL(server.dsn).pathname.slice(1));
}

/**
 * The process the case started is still running (never ended nor restarted), and none of its
 * threads died or let a rejection go unhandled meanwhile.
 */
function expectAlive(server: RunningServer): void {
  expect(server.process.exitCode, server.logs().slice(-4000)).toBeNull();
  expect(server.process.signalCode).toBeNull();
  expect(() => process.kill(server.process.pid as number, 0)).not.toThrow();
  expect(server.logs()).not.toMatch(
    /unhandled|thread error|thread exited|worker thread \d+ exited/i,
  );
}

async function start(role: string, url: string): Promise<RunningServer> {
  const server = await startServer({
    env: { DATABASE_URL: url, FAULTLINE_ROLE: role, FAULTLINE_PROCESSORS: "0" },
  });
  servers.push(server);
  onTestFailed(() => console.log(`--- ${role} server's output:\n${server.logs().slice(-6000)}`));
  return server;
}

describe.runIf(usable)("PostgreSQL restarts, crashes and outages under load", () => {
  it("role all: stays up through a fast and an immediate stop, loses nothing acknowledged", async () => {
    const url = await (cluster as PgCluster).createDatabase("survive_all");
    const server = await start("all", url);
    const load = new Load(server);
    await waitFor(() => load.acknowledged().length >= 50, 30_000, "load to be accepted");
    await outage(load, server, () => cluster?.stop("fast"), 3000);
    await outage(load, server, () => cluster?.stop("immediate"), 3000);
    await sleep(1000);
    await load.stop();
    await expectAllStored("survive_all", load, projectOf(server));
    expectAlive(server);
  }, 180_000);

  it("ingest, worker and web processes: each stays up through a fast and an immediate stop", async () => {
    const url = await (cluster as PgCluster).createDatabase("survive_roles");
    // One after the other: the first runs the migrations.
    const ingest = await start("ingest", url);
    const worker = await start("worker", url);
    const web = await start("web", url);
    const load = new Load(ingest);
    await waitFor(() => load.acknowledged().length >= 50, 30_000, "load to be accepted");
    await outage(load, web, () => cluster?.stop("fast"), 3000);
    await outage(load, web, () => cluster?.stop("immediate"), 3000);
    await sleep(1000);
    await load.stop();
    await expectAllStored("survive_roles", load, projectOf(ingest));
    for (const s of [ingest, worker, web]) expectAlive(s);
  }, 180_000);

  it("role all: the database unreachable for 60 s (connections refused)", async () => {
    const url = await (cluster as PgCluster).createDatabase("survive_minute");
    const server = await start("all", url);
    const load = new Load(server, 2);
    await waitFor(() => load.acknowledged().length >= 50, 30_000, "load to be accepted");
    await outage(load, server, () => cluster?.stop("fast"), 60_000);
    await load.stop();
    await expectAllStored("survive_minute", load, projectOf(server));
    expectAlive(server);
  }, 180_000);

  it("role all: started while the database is down, waits for it and then serves", async () => {
    const db = cluster as PgCluster;
    const url = await db.createDatabase("survive_start");
    db.stop("fast");
    let starting: Promise<RunningServer> | undefined;
    try {
      starting = start("all", url);
      // Before: the migrations' ECONNREFUSED ended the process ("server exited early").
      await sleep(4000);
    } finally {
      db.start();
    }
    const server = await starting;
    expect(server.logs()).toMatch(/\[db\] migrations: waiting for the database: .*ECONNREFUSED/);
    const load = new Load(server, 2);
    await waitFor(() => load.acknowledged().length >= 20, 30_000, "load to be accepted");
    await load.stop();
    await expectAllStored("survive_start", load, projectOf(server));
    expectAlive(server);
  }, 120_000);

  it("role all: a worker's session killed by pg_terminate_backend mid-transaction", async () => {
    const db = cluster as PgCluster;
    const url = await db.createDatabase("survive_kill");
    const server = await start("all", url);
    const load = new Load(server);
    await waitFor(() => load.acknowledged().length >= 50, 30_000, "load to be accepted");
    // A session inside a transaction of several statements is the worker's batch (an ingest
    // append is one statement): claimed rows, events and issues written, not yet committed.
    let killed = 0;
    const deadline = Date.now() + 30_000;
    while (killed < 3 && Date.now() < deadline) {
      const rows = await db.query<{ terminated: boolean }>(
        "survive_kill",
        `select pg_terminate_backend(pid) as terminated from pg_stat_activity
          where datname = 'survive_kill' and pid <> pg_backend_pid() and xact_start is not null
            and (state = 'idle in transaction' or query ilike '%for update skip locked%'
                 or query ilike 'insert into "events"%' or query ilike 'update "issues"%')`,
      );
      killed += rows.filter((r) => r.terminated).length;
      await sleep(killed > 0 ? 500 : 20);
    }
    expect(killed).toBeGreaterThanOrEqual(3);
    const after = Date.now();
    await waitFor(() => load.acceptedSince(after) >= 20, 30_000, "ingest to keep accepting");
    await load.stop();
    await expectAllStored("survive_kill", load, projectOf(server));
    expectAlive(server);
  }, 120_000);
});

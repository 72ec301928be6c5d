/**
 * `npm run seed:demo`: a demo installation in 5 projects of organization `demo`: 10,000
 * issues and 200,000 events; 2,000,000 spans in 100,000 traces over 30 days plus one trace
 * of 10,000 spans, and error events inside some of the traces; 2,000,000 log lines; 50 cron
 * monitors with 30 days of check-ins; 200 releases with 30 days of sessions; user feedback.
 *
 * Everything the protocol lets a client send today goes through the real ingest endpoint of
 * the production server (envelopes built the way the SDKs build them, many per keep-alive
 * connection, bodies over 32 KiB gzipped as @sentry/node does): events, spans, transactions,
 * logs, the last 4 days of sessions, each monitor's current check-in, feedback. Ingest
 * refuses sessions older than 5 days and files a check-in at its arrival, so the older
 * sessions and the 30 days of check-ins are replayed through ingest's own process and store
 * functions with the receipt time they would have had (scripts/demo-health.ts).
 *
 * Env: SEED_DATA_DIR (default data/demo) or DATABASE_URL (postgres://…), SEED_ISSUES,
 * SEED_EVENTS, SEED_SPANS, SEED_TRACES, SEED_LOGS, SEED_MONITORS, SEED_RELEASES,
 * SEED_FEEDBACK, SEED_CONNECTIONS.
 */
import fs from "node:fs";
import http from "node:http";
import zlib from "node:zlib";
import { formatDsn } from "../src/projects/dsn";
import { startServer } from "../tests/helpers/server";
import {
  createProjects,
  type Project,
  resolvedCulprits,
  settle,
  triage,
  waitForEvents,
  waitForRows,
} from "./demo-db";
import {
  DEMO_PROJECTS,
  type DemoIssue,
  demoIssue,
  demoTimestamp,
  eventFactory,
  prng,
  RELEASES,
} from "./demo-events";
import {
  currentCheckIns,
  demoMonitors,
  feedbackEnvelopes,
  recentSessionEnvelopes,
  replayCheckIns,
  replaySessions,
} from "./demo-health";
import { LOG_COMMON_WORD, LOG_RARE_WORD, logSet } from "./demo-logs";
import {
  DEMO_DATA_DIR,
  DEMO_DATABASE_URL,
  DEMO_OWNER,
  requireNextBuild,
  SEED_INFO_FILE,
  type SeedInfo,
  setUpOwner,
} from "./demo-site";
import { traceSet } from "./demo-traces";

const ISSUES = Number(process.env.SEED_ISSUES ?? 10_000);
const EVENTS = Number(process.env.SEED_EVENTS ?? 200_000);
const SPANS = Number(process.env.SEED_SPANS ?? 2_000_000);
const TRACES = Number(process.env.SEED_TRACES ?? 100_000);
const LOGS = Number(process.env.SEED_LOGS ?? 2_000_000);
const MONITORS = Number(process.env.SEED_MONITORS ?? 50);
const FEEDBACK = Number(process.env.SEED_FEEDBACK ?? 2_000);
const CONNECTIONS = Number(process.env.SEED_CONNECTIONS ?? 16);
/** @sentry/node gzips a body past this many bytes. */
const GZIP_FROM = 32 * 1024;
/** Share of resolved issues that get a new event, which makes ingest mark them regressed. */
const REGRESSING = 0.25;

/** Which issue each event belongs to: every issue once, the rest Zipf-like (a few loud ones). */
function eventPlan(r: () => number): Int32Array {
  const plan = new Int32Array(EVENTS);
  const rank = Array.from({ length: ISSUES }, (_, i) => i).sort(() => r() - 0.5);
  const cdf = new Float64Array(ISSUES);
  let acc = 0;
  for (let i = 0; i < ISSUES; i++) {
    acc += 1 / (i + 1) ** 1.05;
    cdf[i] = acc;
  }
  for (let e = 0; e < EVENTS; e++) {
    if (e < ISSUES) {
      plan[e] = e;
      continue;
    }
    const x = r() * acc;
    let lo = 0;
    let hi = ISSUES - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cdf[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    plan[e] = rank[lo] as number;
  }
  return plan;
}

/** Sends `count` envelopes from `next(i)` over CONNECTIONS keep-alive connections. */
async function send(
  baseUrl: string,
  projects: Project[],
  count: number,
  next: (i: number) => { project: number; body: string },
  label: string,
): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let cursor = 0;
  let done = 0;
  const started = Date.now();
  const post = (project: Project, text: string) =>
    new Promise<number>((resolve, reject) => {
      const gzip = text.length > GZIP_FROM;
      const body = gzip ? zlib.gzipSync(text, { level: 1 }) : text;
      const req = http.request(
        `${baseUrl}/api/${project.id}/envelope/?sentry_key=${project.key}`,
        {
          method: "POST",
          agent,
          headers: {
            "content-type": "application/x-sentry-envelope",
            ...(gzip ? { "content-encoding": "gzip" } : {}),
          },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  const worker = async () => {
    while (cursor < count) {
      const i = cursor++;
      const { project, body } = next(i);
      for (;;) {
        const status = await post(projects[project] as Project, body);
        if (status === 200) break;
        // The queue is full (429) or the disk guard refused (503): wait as an SDK would.
        if (status === 429 || status === 503) await new Promise((r) => setTimeout(r, 1000));
        else throw new Error(`ingest answered ${status} for envelope ${i}`);
      }
      done++;
      if (done % 20_000 === 0 || done === count)
        console.log(
          `[seed] ${label}: ${done}/${count} accepted (${Math.round(done / ((Date.now() - started) / 1000))}/s)`,
        );
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
}

/** The demo issue behind each stored one: its culprit names the code path, unique per project. */
function demoIndexByCulprit(projects: Project[]): Map<string, number> {
  const map = new Map<string, number>();
  for (let i = 0; i < ISSUES; i++) {
    const issue = demoIssue(i);
    const project = projects[issue.project] as Project;
    map.set(`${project.id}:${issue.fn}(${project.slug}.${issue.area})`, i);
  }
  return map;
}

/** Projects and the owner exist before the replay, which needs the server stopped. */
async function setUp(): Promise<Project[]> {
  const server = await startServer({
    dataDir: DEMO_DATA_DIR,
    env: { DATABASE_URL: DEMO_DATABASE_URL },
  });
  try {
    await setUpOwner(server.url);
    return await createProjects(1);
  } finally {
    await server.stop();
  }
}

async function main() {
  requireNextBuild();
  if (
    DEMO_DATABASE_URL.startsWith("file:") &&
    fs.existsSync(DEMO_DATA_DIR) &&
    fs.readdirSync(DEMO_DATA_DIR).length > 0
  )
    throw new Error(
      `${DEMO_DATA_DIR} is not empty: remove it (or set SEED_DATA_DIR) to seed afresh`,
    );
  fs.mkdirSync(DEMO_DATA_DIR, { recursive: true });

  const started = Date.now();
  const stamp = (what: string) =>
    console.log(`[seed] ${what} (${Math.round((Date.now() - started) / 1000)} s)`);
  const projects = await setUp();
  const projectIds = projects.map((p) => p.id);
  const now = Date.now();
  const monitors = demoMonitors(MONITORS);
  const replayedSessions = await replaySessions(DEMO_DATABASE_URL, projectIds, now, RELEASES);
  stamp(`replayed ${replayedSessions} sessions older than the ingest window`);
  const replayedCheckIns = await replayCheckIns(
    DEMO_DATABASE_URL,
    projectIds,
    monitors,
    now,
    Date.now(),
  );
  stamp(`replayed ${replayedCheckIns} check-in updates of ${monitors.length} monitors`);

  const server = await startServer({
    dataDir: DEMO_DATA_DIR,
    env: { DATABASE_URL: DEMO_DATABASE_URL },
  });
  let info: SeedInfo;
  try {
    const r = prng(20261122);
    const factory = eventFactory(now);
    const plan = eventPlan(r);
    const issues = new Map<number, DemoIssue>();
    const issueOf = (i: number) => {
      const issue = issues.get(i) ?? demoIssue(i);
      issues.set(i, issue);
      return issue;
    };
    const dsnOf = (p: Project) => formatDsn(server.url, p.key, p.id);
    const dsns = projects.map(dsnOf);
    const dsn = (project: number) => dsns[project] as string;
    const sendList = (list: { project: number; body: string }[], label: string) =>
      send(server.url, projects, list.length, (i) => list[i] as (typeof list)[number], label);
    console.log(
      `[seed] sending ${EVENTS} events for ${ISSUES} issues in ${projects.length} projects`,
    );
    await send(
      server.url,
      projects,
      EVENTS,
      (i) => {
        const issue = issueOf(plan[i] as number);
        const ts = demoTimestamp(r, now);
        return {
          project: issue.project,
          body: factory.envelope(issue, ts, r, dsnOf(projects[issue.project] as Project)),
        };
      },
      "events",
    );

    // Traces, and an error event inside half of the failed ones (issue → trace links).
    const traces = traceSet(TRACES, SPANS, now, 1122);
    const linked: { issue: number; ts: number; traceId: string; spanId: string }[] = [];
    const linkRandom = prng(77);
    await send(
      server.url,
      projects,
      TRACES,
      (i) => {
        const p = traces.plan(i);
        if (p.failed && linkRandom() < 0.5)
          linked.push({
            issue: p.project + DEMO_PROJECTS.length * Math.floor(linkRandom() * (ISSUES / 5)),
            ts: p.start + p.duration * 0.8,
            traceId: p.traceId,
            spanId: p.rootSpanId,
          });
        return traces.envelope(i, dsn);
      },
      "traces",
    );
    const big = traces.bigTrace(dsn);
    for (let k = 0; k < 3; k++)
      linked.push({
        issue: 1 + DEMO_PROJECTS.length * k,
        ts: now - 3_600_000 + 5_000 * (k + 1),
        traceId: big.traceId,
        spanId: big.spanIds[k * 3000 + 7] as string,
      });
    await sendList(big.envelopes, "big trace");
    const linkedEvents: { project: number; eventId: string }[] = [];
    await send(
      server.url,
      projects,
      linked.length,
      (i) => {
        const l = linked[i] as (typeof linked)[number];
        const issue = issueOf(l.issue);
        const body = factory.envelope(issue, l.ts, r, dsn(issue.project), l);
        linkedEvents.push({
          project: issue.project,
          eventId: (JSON.parse(body.slice(0, body.indexOf("\n"))) as { event_id: string }).event_id,
        });
        return { project: issue.project, body };
      },
      "errors in traces",
    );
    stamp("traces sent");

    const logs = logSet(LOGS, traces, now, 2233);
    await send(server.url, projects, logs.envelopes, (e) => logs.envelope(e, dsn), "logs");
    stamp("logs sent");

    const sessions = recentSessionEnvelopes(now, RELEASES, dsn);
    await sendList(sessions, "sessions");
    const feedback = feedbackEnvelopes(FEEDBACK, linkedEvents, dsn);
    await sendList(feedback, "feedback");

    const totalEvents = EVENTS + linked.length;
    // In the order they were sent: the worker takes the queue in order.
    await waitForRows("spans", SPANS + 10_000);
    await waitForEvents(totalEvents);
    await waitForRows("log_items", LOGS);
    stamp("processed");

    // Resolve a share, then send one new event to some of them: ingest marks those regressed.
    const resolved = await triage(projects, r);
    const byCulprit = demoIndexByCulprit(projects);
    const regress = (await resolvedCulprits(resolved.filter(() => r() < REGRESSING)))
      .map((row) => byCulprit.get(`${row.projectId}:${row.culprit}`))
      .filter((i): i is number => i !== undefined);
    console.log(`[seed] ${resolved.length} resolved; ${regress.length} regress with a new event`);
    await send(
      server.url,
      projects,
      regress.length,
      (i) => {
        const issue = issueOf(regress[i] as number);
        return {
          project: issue.project,
          body: factory.envelope(
            issue,
            Date.now() - Math.floor(r() * 3_600_000),
            r,
            dsnOf(projects[issue.project] as Project),
          ),
        };
      },
      "regressions",
    );
    // Each monitor's current run, sent last so that the monitors end the seed up to date.
    const checkIns = currentCheckIns(monitors, dsn);
    await sendList(checkIns, "check-ins");
    await waitForEvents(totalEvents + regress.length);
    await settle();
    stamp("settled");

    // A trace of exactly 10 spans for the benchmark's small waterfall.
    let small = traces.plan(0);
    for (let i = 0; i < Math.min(TRACES, 10_000); i++) {
      const p = traces.plan(i);
      if (Math.abs(p.spanCount - 10) < Math.abs(small.spanCount - 10)) small = p;
      if (p.spanCount === 10) break;
    }
    info = {
      orgSlug: DEMO_OWNER.orgSlug,
      email: DEMO_OWNER.email,
      password: DEMO_OWNER.password,
      databaseUrl: DEMO_DATABASE_URL,
      projects: DEMO_PROJECTS.map((p) => p.slug),
      issues: ISSUES,
      events: totalEvents + regress.length,
      spans: SPANS + 10_000,
      traces: TRACES + 1,
      logs: LOGS,
      monitors: monitors.map((m) => m.slug),
      releases: RELEASES,
      feedback: FEEDBACK,
      bigTrace: big.traceId,
      smallTrace: small.traceId,
      smallTraceSpans: small.spanCount,
      rareWord: LOG_RARE_WORD,
      commonWord: LOG_COMMON_WORD,
      seededAt: new Date().toISOString(),
      seedSeconds: Math.round((Date.now() - started) / 1000),
    };
    console.log(
      `\n[seed] Demo ready: ${ISSUES} issues, ${info.events} events, ${info.spans} spans, ` +
        `${LOGS} logs, ${MONITORS} monitors, ${RELEASES} releases, ${FEEDBACK} feedback.\n` +
        `  Start it:  ${DEMO_DATABASE_URL.startsWith("file:") ? `FAULTLINE_DATA_DIR=${DEMO_DATA_DIR}` : "DATABASE_URL=…"} npm start\n` +
        `  Open:      http://localhost:3000/${DEMO_OWNER.orgSlug}/issues\n` +
        `  Sign in:   ${DEMO_OWNER.email} / ${DEMO_OWNER.password}`,
    );
    await server.stop();
  } catch (err) {
    console.error(server.logs().slice(-3000));
    await server.stop();
    throw err;
  }

  fs.writeFileSync(SEED_INFO_FILE, JSON.stringify(info, null, 2));
  console.log(`[seed] done in ${Math.round((Date.now() - started) / 1000)} s`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

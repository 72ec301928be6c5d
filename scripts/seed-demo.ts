/**
 * `npm run seed:demo`: a demo installation with 10,000 issues and 200,000 events in 5
 * projects, all sent through the real ingest path of the production server (envelopes built
 * from real SDK events, many per keep-alive connection), then an owner account to sign in.
 *
 * Env: SEED_DATA_DIR (default data/demo) or DATABASE_URL (postgres://…), SEED_ISSUES,
 * SEED_EVENTS, SEED_CONNECTIONS.
 */
import fs from "node:fs";
import http from "node:http";
import { formatDsn } from "../src/projects/dsn";
import { startServer } from "../tests/helpers/server";
import {
  createProjects,
  type Project,
  resolvedCulprits,
  settle,
  triage,
  waitForEvents,
} from "./demo-db";
import {
  DEMO_PROJECTS,
  type DemoIssue,
  demoIssue,
  demoTimestamp,
  eventFactory,
  prng,
} from "./demo-events";
import {
  DEMO_DATA_DIR,
  DEMO_DATABASE_URL,
  DEMO_OWNER,
  requireNextBuild,
  SEED_INFO_FILE,
  type SeedInfo,
  setUpOwner,
} from "./demo-site";

const ISSUES = Number(process.env.SEED_ISSUES ?? 10_000);
const EVENTS = Number(process.env.SEED_EVENTS ?? 200_000);
const CONNECTIONS = Number(process.env.SEED_CONNECTIONS ?? 16);
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
  const post = (project: Project, body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${baseUrl}/api/${project.id}/envelope/?sentry_key=${project.key}`,
        { method: "POST", agent, headers: { "content-type": "application/x-sentry-envelope" } },
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
      if (done % 20_000 === 0)
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
  const server = await startServer({
    dataDir: DEMO_DATA_DIR,
    env: { DATABASE_URL: DEMO_DATABASE_URL },
  });
  try {
    await setUpOwner(server.url);
    const projects = await createProjects(1);
    const now = Date.now();
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
    console.log("[seed] waiting until every event is processed");
    await waitForEvents(EVENTS);

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
    await waitForEvents(EVENTS + regress.length);
    await settle();
    console.log(
      `\n[seed] Demo ready: ${ISSUES} issues, ${EVENTS + regress.length} events.\n` +
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

  const info: SeedInfo = {
    orgSlug: DEMO_OWNER.orgSlug,
    email: DEMO_OWNER.email,
    password: DEMO_OWNER.password,
    databaseUrl: DEMO_DATABASE_URL,
    projects: DEMO_PROJECTS.map((p) => p.slug),
    issues: ISSUES,
    events: EVENTS,
    seededAt: new Date().toISOString(),
  };
  fs.writeFileSync(SEED_INFO_FILE, JSON.stringify(info, null, 2));
  console.log(`[seed] done in ${Math.round((Date.now() - started) / 1000)} s`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

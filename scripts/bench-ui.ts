/**
 * `npm run bench:ui`: on the demo database (`npm run seed:demo`), the production server's
 * response times for the issue list (plain, filtered, sorted) and an issue page, signed in,
 * sequential requests after a warm-up; then the JavaScript each page makes a browser load
 * on first visit (gzipped bytes of its scripts, measured in Chromium).
 *
 * Then (issue 23) the issue search: a five-term query with free text on the page and in the
 * API, and a bulk resolve of every issue through the bulk API (the list's "every matching
 * issue" action runs the same function), after which the issues' statuses are put back.
 *
 * Env: SEED_DATA_DIR / DATABASE_URL as for the seed, BENCH_REQUESTS (default 50).
 */
import zlib from "node:zlib";
import { openDb } from "../src/db/connection";
import { launchBrowser } from "../tests/helpers/browser";
import { startServer } from "../tests/helpers/server";
import { DEMO_DATA_DIR, readSeedInfo, requireNextBuild, signedIn } from "./demo-site";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50);
const WARMUP = 5;
const TARGET_P50_MS = 150;
const TARGET_JS_KB = 250;
const TARGET_BULK_MS = 5000;
/** Five terms, one of them free text (in titles, culprits and function names of the demo). */
const FIVE_TERMS = "is:unresolved level:error environment:production timesSeen:>5 invoice";

interface Row {
  name: string;
  path: string;
  status: number;
  p50: number;
  p95: number;
  jsKb?: number;
  scripts?: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/** Facts the URLs need: the loudest issue, a release and a word that occur in the data. */
async function pickTargets(databaseUrl: string) {
  const db = openDb(databaseUrl, { poolSize: 1 });
  try {
    const top = await db.kysely
      .selectFrom("issues")
      .select(["id", "project_id"])
      .orderBy("times_seen", "desc")
      .limit(1)
      .executeTakeFirstOrThrow();
    const release = await db.kysely
      .selectFrom("events")
      .select("release")
      .where("release", "is not", null)
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    return { issueId: Number(top.id), release: release?.release ?? "api@1.5.0" };
  } finally {
    await db.close();
  }
}

async function main() {
  requireNextBuild();
  const seed = readSeedInfo();
  const server = await startServer({
    dataDir: DEMO_DATA_DIR,
    env: { DATABASE_URL: seed.databaseUrl },
  });
  try {
    const client = await signedIn(server.url, seed.email, seed.password);
    const { issueId, release } = await pickTargets(seed.databaseUrl);
    const org = `/${seed.orgSlug}`;
    const pages: Omit<Row, "status" | "p50" | "p95">[] = [
      { name: "list, no filters", path: `${org}/issues` },
      {
        name: "list, project+level+text",
        path: `${org}/issues?project=api&level=error&query=undefined`,
      },
      { name: "list, environment", path: `${org}/issues?environment=staging` },
      { name: "list, release", path: `${org}/issues?release=${encodeURIComponent(release)}` },
      { name: "list, sorted by events", path: `${org}/issues?sort=events&status=all` },
      { name: "list, page 2 (cursor)", path: "" },
      {
        name: "list, 5-term search + text",
        path: `${org}/issues?query=${encodeURIComponent(FIVE_TERMS)}`,
      },
      {
        name: "API, 5-term search + text",
        path: `/api/0/organizations/${seed.orgSlug}/issues/?query=${encodeURIComponent(FIVE_TERMS)}&limit=50`,
      },
      { name: "issue page", path: `${org}/issues/${issueId}` },
    ];
    // Page 2's cursor comes from page 1's Next link.
    const first = await client.get(`${org}/issues`);
    const next = /href="([^"]*after=[^"]*)"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&");
    const page2 = pages.find((p) => p.path === "");
    if (page2) page2.path = next ?? `${org}/issues`;

    const rows: Row[] = [];
    for (const page of pages) {
      let status = 0;
      for (let i = 0; i < WARMUP; i++) status = (await client.get(page.path)).status;
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const t0 = performance.now();
        const res = await client.get(page.path);
        times.push(performance.now() - t0);
        status = res.status;
      }
      times.sort((a, b) => a - b);
      rows.push({ ...page, status, p50: percentile(times, 0.5), p95: percentile(times, 0.95) });
    }

    const browser = await launchBrowser();
    try {
      const context = await browser.newContext();
      await context.addCookies(
        [...client.cookies].map(([name, value]) => ({ name, value, url: server.url })),
      );
      for (const row of rows) {
        if (row.path.startsWith("/api/")) continue;
        const page = await context.newPage();
        const scripts: Promise<number>[] = [];
        page.on("response", (res) => {
          if (res.request().resourceType() !== "script") return;
          scripts.push(
            res
              .body()
              .then((b) => zlib.gzipSync(b).length)
              .catch(() => 0),
          );
        });
        // Not "networkidle": the self-monitoring SDK and link prefetches keep the network
        // busy. The page's own scripts have all loaded by "load"; a pause catches late chunks.
        await page.goto(`${server.url}${row.path}`, { waitUntil: "load" });
        await page.waitForTimeout(1500);
        const sizes = await Promise.all(scripts);
        row.jsKb = sizes.reduce((a, b) => a + b, 0) / 1024;
        row.scripts = sizes.length;
        await page.close();
      }
    } finally {
      await browser.close();
    }
    printTable(rows);
    await benchBulkResolve(server.url, client.cookies, seed.orgSlug, seed.databaseUrl);
  } finally {
    await server.stop();
  }
}

/**
 * Resolves every issue of the organization in one bulk request (what the list's "every
 * matching issue" + Resolve does), then reopens them, timing both; the seed's statuses are
 * written back afterwards so the next run starts from the same data.
 */
async function benchBulkResolve(
  baseUrl: string,
  cookies: Map<string, string>,
  orgSlug: string,
  databaseUrl: string,
): Promise<void> {
  const db = openDb(databaseUrl, { poolSize: 1 });
  try {
    const before = await db.kysely
      .selectFrom("issues")
      .select(["id", "status", "substatus"])
      .execute();
    const put = async (status: string) => {
      const t0 = performance.now();
      const res = await fetch(`${baseUrl}/api/0/organizations/${orgSlug}/issues/?query=`, {
        method: "PUT",
        headers: {
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
          origin: baseUrl,
          "content-type": "application/json",
        },
        body: JSON.stringify({ status }),
      });
      const body = (await res.json()) as { changed?: number };
      return { ms: performance.now() - t0, status: res.status, changed: body.changed ?? 0 };
    };
    const resolved = await put("resolved");
    const reopened = await put("unresolved");
    console.log(
      `\nbulk resolve of all ${before.length} issues: ${resolved.ms.toFixed(0)} ms (HTTP ${resolved.status}, ${resolved.changed} changed)${resolved.ms > TARGET_BULK_MS ? " (over)" : ""}; target ≤ ${TARGET_BULK_MS} ms`,
    );
    console.log(
      `bulk unresolve of all: ${reopened.ms.toFixed(0)} ms (${reopened.changed} changed)`,
    );
    // Back to the seed's statuses.
    const groups = new Map<string, number[]>();
    for (const r of before) {
      const key = `${r.status}\u0000${r.substatus ?? ""}`;
      groups.set(key, [...(groups.get(key) ?? []), Number(r.id)]);
    }
    await db.kysely.transaction().execute(async (trx) => {
      for (const [key, ids] of groups) {
        const [status, substatus] = key.split("\u0000") as [string, string];
        for (let i = 0; i < ids.length; i += 500) {
          await trx
            .updateTable("issues")
            .set({ status: status as "resolved", substatus: substatus || null })
            .where("id", "in", ids.slice(i, i + 500))
            .execute();
        }
      }
    });
  } finally {
    await db.close();
  }
}

function printTable(rows: Row[]) {
  const header = ["page", "status", "p50 ms", "p95 ms", "first-load JS KB gz (scripts)"];
  const body = rows.map((r) => [
    r.name,
    String(r.status),
    `${r.p50.toFixed(0)}${r.p50 > TARGET_P50_MS ? " (over)" : ""}`,
    r.p95.toFixed(0),
    `${r.jsKb?.toFixed(0) ?? "?"} (${r.scripts ?? 0})${(r.jsKb ?? 0) > TARGET_JS_KB ? " (over)" : ""}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(
    `\n${REQUESTS} sequential requests per page after ${WARMUP} warm-up; targets p50 ≤ ${TARGET_P50_MS} ms, JS ≤ ${TARGET_JS_KB} KB\n`,
  );
  console.log(line(header));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const b of body) console.log(line(b));
  for (const r of rows) console.log(`  ${r.name}: ${r.path}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

import { sql } from "kysely";
import { type AuditActor, recordAudit } from "../audit/record";
import type { Db } from "../db/connection";
import { AppError } from "../errors";

/**
 * An organization's public status page (opt-in, its own slug, read without signing in): the
 * uptime monitors its admins chose, each one's state, 90 days of daily uptime and its
 * incidents. What it reads is the public part only — a monitor's name and state, its URL only
 * where chosen, never errors, status codes, projects, issues or anything else of the
 * organization — and what it returns is built field by field from that.
 */
const DAY = 86_400_000;
export const STATUS_DAYS = 90;

export interface StatusPageInput {
  slug: string;
  title: string;
  enabled: boolean;
  monitors: number[];
  showUrl: number[];
}

export async function statusPageSettings(db: Db, orgId: number) {
  const page = await db.kysely
    .selectFrom("status_pages")
    .selectAll()
    .where("organization_id", "=", orgId)
    .executeTakeFirst();
  const chosen = page
    ? await db.kysely
        .selectFrom("status_page_monitors")
        .select(["monitor_id", "show_url"])
        .where("status_page_id", "=", page.id)
        .execute()
    : [];
  const monitors = await db.kysely
    .selectFrom("uptime_monitors")
    .select(["id", "name", "url"])
    .where("organization_id", "=", orgId)
    .orderBy("name")
    .execute();
  const byId = new Map(chosen.map((c) => [Number(c.monitor_id), Number(c.show_url) === 1]));
  return {
    page: page ? { slug: page.slug, title: page.title, enabled: Number(page.enabled) === 1 } : null,
    monitors: monitors.map((m) => ({
      id: Number(m.id),
      name: m.name,
      url: m.url,
      chosen: byId.has(Number(m.id)),
      showUrl: byId.get(Number(m.id)) ?? false,
    })),
  };
}

export async function saveStatusPage(
  db: Db,
  orgId: number,
  input: StatusPageInput,
  actor: AuditActor,
): Promise<void> {
  const ids = [...new Set(input.monitors)];
  if (ids.length > 0) {
    const own = await db.kysely
      .selectFrom("uptime_monitors")
      .select("id")
      .where("organization_id", "=", orgId)
      .where("id", "in", ids)
      .execute();
    if (own.length !== ids.length) throw new AppError("not_found", "uptime monitor not found");
  }
  const taken = await db.kysely
    .selectFrom("status_pages")
    .select("organization_id")
    .where("slug", "=", input.slug)
    .executeTakeFirst();
  if (taken && Number(taken.organization_id) !== orgId)
    throw new AppError("bad_request", "That address is taken; choose another");
  const now = Date.now();
  await db.kysely.transaction().execute(async (trx) => {
    const page = await trx
      .insertInto("status_pages")
      .values({
        organization_id: orgId,
        slug: input.slug,
        title: input.title,
        enabled: input.enabled ? 1 : 0,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.column("organization_id").doUpdateSet({
          slug: input.slug,
          title: input.title,
          enabled: input.enabled ? 1 : 0,
          updated_at: now,
        }),
      )
      .returning("id")
      .executeTakeFirstOrThrow();
    await trx.deleteFrom("status_page_monitors").where("status_page_id", "=", page.id).execute();
    if (ids.length > 0)
      await trx
        .insertInto("status_page_monitors")
        .values(
          ids.map((id, position) => ({
            status_page_id: Number(page.id),
            monitor_id: id,
            position,
            show_url: input.showUrl.includes(id) ? 1 : 0,
          })),
        )
        .execute();
    await recordAudit(trx, {
      orgId,
      actor,
      action: "status_page.update",
      target: input.slug,
      details: { enabled: input.enabled, monitors: ids.length },
    });
  });
}

export interface PublicStatusPage {
  title: string;
  monitors: {
    /** Its place on the page (no internal id leaves the server). */
    position: number;
    name: string;
    url: string | null;
    state: "up" | "down" | "pending" | "paused";
    /** Oldest first, one per day: the share of successful checks, null where none ran. */
    days: { day: number; share: number | null }[];
  }[];
  incidents: { monitor: string; startedAt: number; resolvedAt: number | null }[];
}

export async function publicStatusPage(
  db: Db,
  slug: string,
  now = Date.now(),
): Promise<PublicStatusPage | undefined> {
  const page = await db.kysely
    .selectFrom("status_pages")
    .select(["id", "title"])
    .where("slug", "=", slug)
    .where("enabled", "=", 1)
    .executeTakeFirst();
  if (!page) return undefined;
  const monitors = await db.kysely
    .selectFrom("status_page_monitors")
    .innerJoin("uptime_monitors", "uptime_monitors.id", "status_page_monitors.monitor_id")
    .select([
      "uptime_monitors.id",
      "uptime_monitors.name",
      "uptime_monitors.url",
      "uptime_monitors.state",
      "uptime_monitors.status",
      "status_page_monitors.show_url",
      "status_page_monitors.position",
    ])
    .where("status_page_monitors.status_page_id", "=", page.id)
    .orderBy("status_page_monitors.position")
    .execute();
  const ids = monitors.map((m) => Number(m.id));
  const today = Math.floor(now / DAY);
  const first = today - STATUS_DAYS + 1;
  const daily =
    ids.length === 0
      ? []
      : await db.kysely
          .selectFrom("uptime_checks")
          .select([
            "monitor_id",
            sql<number>`started_at / ${sql.lit(DAY)}`.as("day"),
            sql<number>`count(*)`.as("total"),
            sql<number>`sum(ok)`.as("up"),
          ])
          .where("monitor_id", "in", ids)
          .where("started_at", ">=", first * DAY)
          .groupBy(["monitor_id", sql`started_at / ${sql.lit(DAY)}`])
          .execute();
  const shares = new Map<string, number>();
  for (const d of daily)
    shares.set(
      `${Number(d.monitor_id)}:${Math.floor(Number(d.day))}`,
      Number(d.up) / Number(d.total),
    );
  const incidents =
    ids.length === 0
      ? []
      : await db.kysely
          .selectFrom("uptime_incidents")
          .select(["monitor_id", "started_at", "resolved_at"])
          .where("monitor_id", "in", ids)
          .where("started_at", ">=", first * DAY)
          .orderBy("started_at", "desc")
          .limit(50)
          .execute();
  const names = new Map(monitors.map((m) => [Number(m.id), m.name]));
  return {
    title: page.title,
    monitors: monitors.map((m) => ({
      position: Number(m.position),
      name: m.name,
      url: Number(m.show_url) === 1 ? m.url : null,
      state: m.status === "disabled" ? "paused" : m.state,
      days: Array.from({ length: STATUS_DAYS }, (_, i) => {
        const day = first + i;
        return { day: day * DAY, share: shares.get(`${Number(m.id)}:${day}`) ?? null };
      }),
    })),
    incidents: incidents.map((i) => ({
      monitor: names.get(Number(i.monitor_id)) ?? "",
      startedAt: Number(i.started_at),
      resolvedAt: i.resolved_at === null ? null : Number(i.resolved_at),
    })),
  };
}

import { accountsDb } from "../../auth/tables";
import type { Db } from "../../db/connection";
import type { DeliveryTarget } from "./actions";
import type { AlertContent } from "./content";

/**
 * Alert mail: who gets it (the organization's members, or those named, each as their
 * notification settings allow) and what it says (HTML and text, every client value escaped).
 */
export interface Recipient {
  userId: string;
  email: string;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\r\n\t]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Members the action names (user id or email) or all members of the org, less those whose
 * settings refuse this alert. A test notification goes to everyone named unless they chose none.
 */
export async function alertRecipients(
  db: Db,
  target: Extract<DeliveryTarget, { kind: "email" }>,
  row: { organization_id: number; project_id: number | null; reason: string },
  issueAssignee: string | null,
): Promise<Recipient[]> {
  const adb = accountsDb(db);
  let q = adb
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .leftJoin("notification_settings", "notification_settings.user_id", "members.user_id")
    .select([
      "user.id as userId",
      "user.email as email",
      "notification_settings.none as none",
      "notification_settings.assigned as assigned",
      "notification_settings.projects as projects",
    ])
    .where("members.organization_id", "=", row.organization_id);
  if (!target.all) {
    const named = target.members;
    const lowered = named.map((n) => n.toLowerCase());
    q = q.where((eb) =>
      eb.or([eb("user.id", "in", named), eb(eb.fn("lower", ["user.email"]), "in", lowered)]),
    );
  }
  const rows = await q.execute();
  const out: Recipient[] = [];
  for (const r of rows) {
    if (!r.email) continue;
    if (r.none !== null && r.none !== undefined) {
      if (Number(r.none) === 1) continue;
      if (row.reason !== "test") {
        const assignedOk = Number(r.assigned) === 1 && issueAssignee === r.userId;
        let projects: number[] = [];
        try {
          projects = (JSON.parse(r.projects ?? "[]") as unknown[]).map(Number);
        } catch {}
        const projectOk = row.project_id !== null && projects.includes(Number(row.project_id));
        if (!assignedOk && !projectOk) continue;
      }
    }
    out.push({ userId: r.userId, email: r.email });
  }
  return out;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export function renderAlertMail(c: AlertContent): RenderedMail {
  const project = c.project?.slug ?? c.org.slug;
  const subject = c.digest
    ? `[${project}] ${c.headline}: ${c.digest.items.length} more issues`
    : `[${project}] ${c.headline}: ${oneLine(
        c.issue?.title ?? (c.monitor ? c.monitor.name : "test notification"),
        150,
      )}`;

  const facts: [string, string][] = [];
  facts.push(["Organization", c.org.name]);
  if (c.project) facts.push(["Project", c.project.name]);
  if (c.issue) {
    facts.push(["Level", c.issue.level]);
    if (c.issue.culprit) facts.push(["Culprit", c.issue.culprit]);
  }
  facts.push(["Environment", c.environment ?? "—"]);
  facts.push(["Release", c.release ?? "—"]);
  if (c.issue) {
    facts.push(["Events", String(c.issue.timesSeen)]);
    facts.push(["Users affected", String(c.issue.userCount)]);
    facts.push(["First seen", new Date(c.issue.firstSeen).toISOString()]);
  }
  if (c.monitor)
    facts.push(["Monitor", `${c.monitor.name} (${c.monitor.slug}), ${c.monitor.status}`]);
  if (c.ruleName) facts.push(["Alert rule", c.ruleName]);

  const text: string[] = [c.headline, ""];
  if (c.issue) text.push(oneLine(c.issue.title, 500), "");
  if (c.reason === "test")
    text.push("This is a test notification: the rule's email action works.", "");
  for (const [k, v] of facts) text.push(`${k}: ${oneLine(v, 300)}`);
  if (c.frames.length > 0) {
    text.push("", "Top frames:");
    for (const f of c.frames)
      text.push(
        `  ${oneLine(f.function, 200)}  ${oneLine(f.filename, 200)}${f.lineno !== null ? `:${f.lineno}` : ""}`,
      );
  }
  if (c.digest) {
    text.push("", `${c.digest.count} more alerts past the hourly limit, about these issues:`);
    for (const i of c.digest.items) text.push(`- ${oneLine(i.title, 200)}  ${i.url}`);
  }
  text.push("", `Open in Faultline: ${c.url}`, "");
  text.push(`You get this because you are a member of ${c.org.name}.`);
  text.push(`Unsubscribe or change what you get: ${c.settingsUrl}`);

  const h = escapeHtml;
  const row = ([k, v]: [string, string]) =>
    `<tr><th align="left" style="padding:2px 12px 2px 0;color:#555;font-weight:normal">${h(k)}</th><td style="padding:2px 0">${h(oneLine(v, 300))}</td></tr>`;
  const frames =
    c.frames.length > 0
      ? `<h3 style="font-size:14px;margin:16px 0 4px">Top frames</h3><pre style="background:#f5f5f5;padding:8px;font-size:12px;white-space:pre-wrap">${c.frames
          .map((f) =>
            h(
              `${oneLine(f.function, 200)}  ${oneLine(f.filename, 200)}${f.lineno !== null ? `:${f.lineno}` : ""}`,
            ),
          )
          .join("\n")}</pre>`
      : "";
  const digest = c.digest
    ? `<p>${h(`${c.digest.count} more alerts past the hourly limit, about these issues:`)}</p><ul>${c.digest.items
        .map((i) => `<li><a href="${h(i.url)}">${h(oneLine(i.title, 200))}</a></li>`)
        .join("")}</ul>`
    : "";
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#111">
<p style="color:#555;margin:0">${h(c.headline)}</p>
${c.issue ? `<h2 style="font-size:18px;margin:4px 0 12px">${h(oneLine(c.issue.title, 500))}</h2>` : ""}
${c.reason === "test" ? "<p>This is a test notification: the rule's email action works.</p>" : ""}
<table style="font-size:14px;border-collapse:collapse">${facts.map(row).join("")}</table>
${frames}${digest}
<p><a href="${h(c.url)}" style="display:inline-block;background:#4f46e5;color:#fff;padding:8px 14px;border-radius:6px;text-decoration:none">Open in Faultline</a></p>
<p style="color:#777;font-size:12px">You get this because you are a member of ${h(c.org.name)}. <a href="${h(c.settingsUrl)}">Unsubscribe or change what you get</a>.</p>
</body></html>`;
  return { subject: oneLine(subject, 200), text: text.join("\n"), html };
}

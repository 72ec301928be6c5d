import type { WebhookKind } from "./actions";
import type { AlertContent, AlertIssue } from "./content";

/**
 * Message bodies per channel. Chat formats get plain text with their markup characters
 * escaped (Slack mrkdwn `&<>`, Discord/Teams/Google Chat Markdown), so an event's title cannot
 * become a link or a mention; the generic webhook gets Sentry's legacy payload as JSON.
 */
const CHAT_DIGEST_ITEMS = 40;

function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\r\n\t]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Slack mrkdwn: only &, < and > are special (and they start links and mentions). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Markdown (Discord, Teams): backslash the characters that format, link or mention. */
export function markdownEscape(text: string): string {
  return text.replace(/([\\`*_~|>#[\]()<@!:-])/g, "\\$1");
}

function title(c: AlertContent): string {
  if (c.issue) return oneLine(c.issue.title, 200);
  if (c.monitor) return oneLine(`${c.monitor.name} (${c.monitor.slug})`, 200);
  return c.reason === "test" ? "This is a test notification from Faultline" : c.headline;
}

function fields(c: AlertContent): [string, string][] {
  const out: [string, string][] = [];
  if (c.project) out.push(["Project", c.project.slug]);
  out.push(["Environment", c.environment ?? "—"]);
  if (c.issue) {
    out.push(["Level", c.issue.level]);
    if (c.issue.culprit) out.push(["Culprit", oneLine(c.issue.culprit, 200)]);
    out.push(["Events", String(c.issue.timesSeen)]);
    out.push(["Users", String(c.issue.userCount)]);
  }
  if (c.release) out.push(["Release", oneLine(c.release, 100)]);
  if (c.monitor) out.push(["Monitor status", c.monitor.status]);
  if (c.ruleName) out.push(["Rule", oneLine(c.ruleName, 100)]);
  return out;
}

function digestLines(c: AlertContent, esc: (s: string) => string, link: (i: AlertIssue) => string) {
  const items = c.digest?.items ?? [];
  const shown = items.slice(0, CHAT_DIGEST_ITEMS).map((i) => `• ${link(i)}`);
  const rest = items.length - shown.length;
  return {
    heading: esc(
      `${c.digest?.count ?? 0} more alerts past the hourly limit (${items.length} issues)`,
    ),
    lines: shown,
    rest: rest > 0 ? `…and ${rest} more issues` : "",
  };
}

export function slackPayload(c: AlertContent): Record<string, unknown> {
  const head = `${c.headline}: ${title(c)}`;
  if (c.digest) {
    const d = digestLines(
      c,
      slackEscape,
      (i) => `<${i.url}|${slackEscape(oneLine(i.title, 120))}>`,
    );
    return {
      text: slackEscape(`${c.headline}: ${d.heading}`),
      blocks: [
        { type: "header", text: { type: "plain_text", text: oneLine(c.headline, 150) } },
        { type: "section", text: { type: "mrkdwn", text: d.heading } },
        {
          type: "section",
          text: {
            type: "mrkdwn",
            text: [...d.lines, d.rest].filter(Boolean).join("\n").slice(0, 2900),
          },
        },
      ],
    };
  }
  return {
    text: slackEscape(oneLine(head, 300)),
    blocks: [
      { type: "header", text: { type: "plain_text", text: oneLine(title(c), 150) } },
      { type: "section", text: { type: "mrkdwn", text: `*${slackEscape(c.headline)}*` } },
      {
        type: "section",
        fields: fields(c)
          .slice(0, 10)
          .map(([k, v]) => ({ type: "mrkdwn", text: `*${k}*\n${slackEscape(v)}` })),
      },
      {
        type: "actions",
        elements: [
          {
            type: "button",
            text: { type: "plain_text", text: c.issue ? "View issue" : "Open in Faultline" },
            url: c.url,
          },
        ],
      },
    ],
  };
}

const LEVEL_COLORS: Record<string, number> = {
  fatal: 0x8b0000,
  error: 0xe03e2f,
  warning: 0xf5a623,
  info: 0x2f80ed,
  debug: 0x9b9b9b,
};

export function discordPayload(c: AlertContent): Record<string, unknown> {
  if (c.digest) {
    const d = digestLines(
      c,
      markdownEscape,
      (i) => `[${markdownEscape(oneLine(i.title, 80))}](${i.url})`,
    );
    return {
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: oneLine(c.headline, 250),
          description: [d.heading, ...d.lines, d.rest].filter(Boolean).join("\n").slice(0, 4000),
          url: c.url,
        },
      ],
    };
  }
  return {
    // Nothing in an alert may ping @everyone or a role.
    allowed_mentions: { parse: [] },
    content: markdownEscape(oneLine(c.headline, 200)),
    embeds: [
      {
        title: oneLine(title(c), 250),
        url: c.url,
        color: LEVEL_COLORS[c.issue?.level ?? ""] ?? 0x6b7280,
        fields: fields(c)
          .slice(0, 25)
          .map(([name, value]) => ({
            name,
            value: markdownEscape(value).slice(0, 1000),
            inline: true,
          })),
        footer: { text: `Faultline · ${c.org.slug}` },
        timestamp: new Date().toISOString(),
      },
    ],
  };
}

/** Teams (incoming webhook), Google Chat and "Slack-compatible" receivers all take `{text}`. */
export function textPayload(c: AlertContent, kind: WebhookKind): Record<string, unknown> {
  const esc = kind === "slackcompatible" ? slackEscape : markdownEscape;
  const lines: string[] = [];
  if (c.digest) {
    const link =
      kind === "slackcompatible"
        ? (i: AlertIssue) => `<${i.url}|${slackEscape(oneLine(i.title, 120))}>`
        : (i: AlertIssue) => `${markdownEscape(oneLine(i.title, 120))} ${i.url}`;
    const d = digestLines(c, esc, link);
    lines.push(esc(c.headline), d.heading, ...d.lines);
    if (d.rest) lines.push(d.rest);
  } else {
    lines.push(`${esc(c.headline)}: ${esc(title(c))}`);
    for (const [k, v] of fields(c)) lines.push(`${k}: ${esc(v)}`);
    lines.push(c.url);
  }
  const text = lines.join(kind === "teams" ? "\n\n" : "\n");
  if (kind === "teams") {
    return {
      "@type": "MessageCard",
      "@context": "https://schema.org/extensions",
      summary: esc(c.headline),
      text,
    };
  }
  return { text };
}

/**
 * Sentry's legacy webhook payload (sentry-plugins' WebHooksPlugin): {id, project, project_name,
 * project_slug, logger, level, culprit, message, url, triggering_rules, event}, with Faultline's
 * `reason` (and `issues` for a digest, every held issue).
 */
export function webhookPayload(c: AlertContent): Record<string, unknown> {
  const e = c.event;
  const payload: Record<string, unknown> = {
    id: c.issue ? String(c.issue.id) : c.monitor ? `monitor-${c.monitor.id}` : null,
    project: c.project?.slug ?? null,
    project_name: c.project?.name ?? null,
    project_slug: c.project?.slug ?? null,
    logger: e?.logger ?? null,
    level: c.issue?.level ?? e?.level ?? (c.monitor ? "error" : "info"),
    culprit: c.issue?.culprit ?? null,
    message: c.issue?.title ?? (c.monitor ? `${c.headline}: ${c.monitor.slug}` : c.headline),
    url: c.url,
    triggering_rules: c.ruleName ? [c.ruleName] : [],
    reason: c.reason,
    event: e
      ? {
          event_id: e.event_id,
          id: e.event_id,
          timestamp: e.timestamp,
          received: e.received,
          level: e.level,
          platform: e.platform,
          logger: e.logger ?? null,
          transaction: e.transaction ?? null,
          environment: e.environment ?? null,
          release: e.release ?? null,
          message: e.message ?? null,
          title: c.issue?.title ?? null,
          culprit: c.issue?.culprit ?? null,
          tags: e.tags,
          user: e.user ?? null,
          exception: e.exception ?? null,
          request: e.request ?? null,
          contexts: e.contexts,
          sdk: e.sdk ?? null,
        }
      : null,
  };
  if (c.monitor)
    payload.monitor = {
      id: c.monitor.id,
      slug: c.monitor.slug,
      name: c.monitor.name,
      status: c.monitor.status,
    };
  if (c.digest)
    payload.issues = c.digest.items.map((i) => ({
      id: String(i.id),
      title: i.title,
      culprit: i.culprit,
      level: i.level,
      url: i.url,
    }));
  return payload;
}

export function chatPayload(c: AlertContent, kind: WebhookKind): Record<string, unknown> {
  switch (kind) {
    case "slack":
      return slackPayload(c);
    case "discord":
      return discordPayload(c);
    case "webhook":
      return webhookPayload(c);
    default:
      return textPayload(c, kind);
  }
}

import type { AlertContent } from "./content";

/**
 * On-call and chat channels beside the webhooks: PagerDuty Events API v2, Opsgenie Alerts API,
 * Telegram Bot API `sendMessage`, ntfy, Zulip, Mattermost incoming webhooks and Pushover. Each
 * has its own request builder, written from the vendor's documented fields; the sender posts
 * the result through the same path as every webhook (SSRF guard, timeout, bounded read,
 * retries, storm guard, delivery log). An alert and its resolution share one key (PagerDuty's
 * `dedup_key`, Opsgenie's `alias`), so the resolve closes what the trigger opened.
 *
 * Credentials (routing keys, tokens) live sealed in the action (src/security/sealed.ts); the
 * sender opens them into `secrets` just before building the request.
 */
export const ONCALL_ACTIONS = {
  pagerduty: "faultline.actions.PagerDutyAction",
  opsgenie: "faultline.actions.OpsgenieAction",
  telegram: "faultline.actions.TelegramAction",
  ntfy: "faultline.actions.NtfyAction",
  zulip: "faultline.actions.ZulipAction",
  mattermost: "faultline.actions.MattermostAction",
  pushover: "faultline.actions.PushoverAction",
} as const;
export type OnCallVendor = keyof typeof ONCALL_ACTIONS;
export const ONCALL_IDS = Object.values(ONCALL_ACTIONS);

/** Each vendor's secret fields: sealed when saved, never returned. */
export const SECRET_FIELDS: Record<OnCallVendor, readonly string[]> = {
  pagerduty: ["routingKey"],
  opsgenie: ["apiKey"],
  telegram: ["botToken"],
  ntfy: ["token"],
  zulip: ["apiKey"],
  mattermost: ["webhookUrl"],
  pushover: ["appToken", "userKey"],
};

/** Where each vendor's API is unless the action names another base (a region, a proxy). */
export const DEFAULT_API: Partial<Record<OnCallVendor, string>> = {
  pagerduty: "https://events.pagerduty.com",
  opsgenie: "https://api.opsgenie.com",
  telegram: "https://api.telegram.org",
  pushover: "https://api.pushover.net",
};

export function vendorOf(id: string): OnCallVendor | undefined {
  return (Object.entries(ONCALL_ACTIONS) as [OnCallVendor, string][]).find(
    ([, v]) => v === id,
  )?.[0];
}

export interface OnCallRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface OnCallAlert {
  content: AlertContent;
  /** Shared by an alert's trigger and its resolution. */
  alertKey: string;
  resolving: boolean;
}

type Fields = Record<string, string | undefined>;

const RESOLVING_REASONS = new Set(["monitor_recovered", "issue_resolved"]);

export function isResolving(reason: string): boolean {
  return RESOLVING_REASONS.has(reason);
}

function flat(text: string, max: number): string {
  const one = text.replace(/[\r\n\t]+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function summary(c: AlertContent): string {
  const what = c.issue?.title ?? (c.monitor ? `${c.monitor.name} (${c.monitor.slug})` : "");
  return what ? `${c.headline}: ${what}` : c.headline;
}

/** The alert's level: the issue's, a monitor's failure as an error, a resolution as info. */
function level(a: OnCallAlert): "fatal" | "error" | "warning" | "info" {
  if (a.resolving) return "info";
  const l = a.content.issue?.level;
  if (l === "fatal" || l === "error" || l === "warning" || l === "info") return l;
  if (l === "debug") return "info";
  return "error";
}

function details(c: AlertContent): Record<string, string> {
  const out: Record<string, string> = {};
  if (c.project) out.project = c.project.slug;
  if (c.environment) out.environment = c.environment;
  if (c.release) out.release = c.release;
  if (c.issue) {
    out.level = c.issue.level;
    out.events = String(c.issue.timesSeen);
    if (c.issue.culprit) out.culprit = flat(c.issue.culprit, 500);
  }
  if (c.monitor) out.monitor = c.monitor.slug;
  if (c.ruleName) out.rule = c.ruleName;
  out.url = c.url;
  return out;
}

function base(vendor: OnCallVendor, f: Fields): string {
  return (f.apiUrl || DEFAULT_API[vendor] || "").replace(/\/+$/, "");
}

/** Markdown (Zulip, Mattermost): backslash what formats, links or mentions. */
function markdownEscape(text: string): string {
  return text.replace(/([\\`*_~|>#[\]()<@!:-])/g, "\\$1");
}

const json = { "content-type": "application/json" };

export function onCallRequest(vendor: OnCallVendor, f: Fields, a: OnCallAlert): OnCallRequest {
  const c = a.content;
  const text = flat(summary(c), 1000);
  switch (vendor) {
    case "pagerduty": {
      // https://developer.pagerduty.com/docs/events-api-v2/trigger-events/
      const body = a.resolving
        ? { routing_key: f.routingKey, event_action: "resolve", dedup_key: a.alertKey }
        : {
            routing_key: f.routingKey,
            event_action: "trigger",
            dedup_key: a.alertKey,
            payload: {
              summary: flat(summary(c), 1024),
              source: c.project
                ? `faultline/${c.org.slug}/${c.project.slug}`
                : `faultline/${c.org.slug}`,
              severity: level(a) === "fatal" ? "critical" : level(a),
              component: c.project?.slug,
              group: c.org.slug,
              class: c.reason,
              custom_details: details(c),
            },
            links: [{ href: c.url, text: "Open in Faultline" }],
            client: "Faultline",
            client_url: c.url,
          };
      return { url: `${base(vendor, f)}/v2/enqueue`, body: JSON.stringify(body), headers: json };
    }
    case "opsgenie": {
      // https://docs.opsgenie.com/docs/alert-api (create; close by alias)
      const headers = { ...json, authorization: `GenieKey ${f.apiKey}` };
      if (a.resolving)
        return {
          url: `${base(vendor, f)}/v2/alerts/${encodeURIComponent(a.alertKey)}/close?identifierType=alias`,
          body: JSON.stringify({ source: "Faultline", note: flat(summary(c), 1000) }),
          headers,
        };
      const priority = { fatal: "P1", error: "P2", warning: "P3", info: "P5" }[level(a)];
      return {
        url: `${base(vendor, f)}/v2/alerts`,
        body: JSON.stringify({
          message: flat(summary(c), 130),
          alias: a.alertKey,
          description: flat(`${summary(c)} — ${c.url}`, 15_000),
          details: details(c),
          priority,
          source: "Faultline",
          entity: c.project?.slug,
          tags: ["faultline", c.reason],
        }),
        headers,
      };
    }
    case "telegram":
      // https://core.telegram.org/bots/api#sendmessage — no parse_mode: the text is plain.
      return {
        url: `${base(vendor, f)}/bot${f.botToken}/sendMessage`,
        body: JSON.stringify({
          chat_id: f.chatId,
          text: flat(`${text}\n${c.url}`, 4096),
          link_preview_options: { is_disabled: true },
        }),
        headers: json,
      };
    case "ntfy": {
      // https://docs.ntfy.sh/publish/#publish-as-json
      const priority = { fatal: 5, error: 4, warning: 3, info: 2 }[level(a)];
      return {
        url: `${(f.serverUrl ?? "").replace(/\/+$/, "")}/`,
        body: JSON.stringify({
          topic: f.topic,
          title: flat(c.headline, 250),
          message: flat(summary(c), 4000),
          priority,
          tags: [a.resolving ? "white_check_mark" : "rotating_light"],
          click: c.url,
        }),
        headers: { ...json, ...(f.token ? { authorization: `Bearer ${f.token}` } : {}) },
      };
    }
    case "zulip": {
      // https://zulip.com/api/send-message — form-encoded, HTTP basic auth as the bot.
      const form = new URLSearchParams({
        type: "stream",
        to: f.stream ?? "",
        topic: flat(f.topic || "Faultline alerts", 60),
        content: `${markdownEscape(text)}\n[Open in Faultline](${c.url})`,
      });
      return {
        url: `${(f.siteUrl ?? "").replace(/\/+$/, "")}/api/v1/messages`,
        body: form.toString(),
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${f.email}:${f.apiKey}`).toString("base64")}`,
        },
      };
    }
    case "mattermost":
      // https://developers.mattermost.com/integrate/webhooks/incoming/
      return {
        url: f.webhookUrl ?? "",
        body: JSON.stringify({
          text: `${markdownEscape(text)}\n[Open in Faultline](${c.url})`,
          username: "Faultline",
        }),
        headers: json,
      };
    case "pushover": {
      // https://pushover.net/api — priority -2..2; emergency (2) needs retry/expire, not used.
      const priority = { fatal: 1, error: 0, warning: 0, info: -1 }[level(a)];
      return {
        url: `${base(vendor, f)}/1/messages.json`,
        body: JSON.stringify({
          token: f.appToken,
          user: f.userKey,
          title: flat(c.headline, 250),
          message: flat(summary(c), 1024),
          url: c.url,
          url_title: "Open in Faultline",
          priority,
        }),
        headers: json,
      };
    }
  }
}

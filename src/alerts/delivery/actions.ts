import { createHash } from "node:crypto";
import { type OnCallVendor, vendorOf } from "./oncall";

/**
 * What an outbox row's `action` (the action as configured on the rule, `{id, …}`) asks the
 * sender to do. Email uses Sentry's action id; the webhooks use Faultline's ids (Sentry's own
 * Slack and Discord actions need its app integrations, which a self-hosted install does not
 * have). Unknown shapes are recognised by the words in their id so that a rule saved by an
 * older or newer editor still delivers, and anything else fails its delivery with a clear error.
 *
 * Shapes (src/alerts/rules/schemas.ts validates them; `checkWebhookUrl` gives the URL's
 * field error once the host is resolved):
 *   {id: "sentry.mail.actions.NotifyEmailAction", targetType: "AllMembers"}   (default)
 *   {id: "sentry.mail.actions.NotifyEmailAction", targetType: "Member", targetIdentifier: "<user id or email>"}
 *   {id: "sentry.mail.actions.NotifyEmailAction", targetType: "Members", targetIdentifiers: ["<user id or email>", …]}
 *   {id: "sentry.integrations.slack.notify_action.SlackNotifyServiceAction", webhookUrl}
 *   {id: "faultline.actions.DiscordWebhookAction", webhookUrl}
 *   {id: "faultline.actions.MicrosoftTeamsWebhookAction", webhookUrl}
 *   {id: "faultline.actions.GoogleChatWebhookAction", webhookUrl}
 *   {id: "faultline.actions.SlackCompatibleWebhookAction", webhookUrl}
 *   {id: "faultline.actions.WebhookAction", url}   (Sentry's legacy payload, signed)
 * (`url` and `webhookUrl` are accepted for every webhook kind.)
 */
export const EMAIL_ACTION = "sentry.mail.actions.NotifyEmailAction";
export const WEBHOOK_ACTIONS = {
  slack: "sentry.integrations.slack.notify_action.SlackNotifyServiceAction",
  discord: "faultline.actions.DiscordWebhookAction",
  teams: "faultline.actions.MicrosoftTeamsWebhookAction",
  googlechat: "faultline.actions.GoogleChatWebhookAction",
  slackcompatible: "faultline.actions.SlackCompatibleWebhookAction",
  webhook: "faultline.actions.WebhookAction",
} as const;

export type WebhookKind = keyof typeof WEBHOOK_ACTIONS;

export type DeliveryTarget =
  | { kind: "email"; all: true }
  | { kind: "email"; all: false; members: string[] }
  | { kind: WebhookKind; url: string }
  /** On-call and chat services (oncall.ts): clear fields, and the credentials still sealed. */
  | { kind: "oncall"; vendor: OnCallVendor; fields: Record<string, string>; sealed: string | null };

export function parseAction(raw: string | Record<string, unknown>): DeliveryTarget | string {
  let action: Record<string, unknown>;
  if (typeof raw === "string") {
    try {
      action = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return "the action is not JSON";
    }
  } else action = raw;
  if (!action || typeof action !== "object") return "the action is not an object";
  const id = typeof action.id === "string" ? action.id : "";
  const lower = id.toLowerCase();
  if (id === EMAIL_ACTION || /mail/.test(lower)) {
    const type = String(action.targetType ?? action.target_type ?? "AllMembers");
    const list = [
      ...(Array.isArray(action.targetIdentifiers) ? action.targetIdentifiers : []),
      ...(Array.isArray(action.members) ? action.members : []),
      ...(action.targetIdentifier !== undefined && action.targetIdentifier !== null
        ? [action.targetIdentifier]
        : []),
    ]
      .map((v) => String(v).trim())
      .filter((v) => v.length > 0);
    if (/^members?$/i.test(type) || (list.length > 0 && !/all/i.test(type)))
      return list.length > 0 ? { kind: "email", all: false, members: list } : "no members named";
    return { kind: "email", all: true };
  }
  const vendor = vendorOf(id);
  if (vendor) {
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(action))
      if (k !== "id" && k !== "sealed" && typeof v === "string") fields[k] = v;
    return {
      kind: "oncall",
      vendor,
      fields,
      sealed: typeof action.sealed === "string" ? action.sealed : null,
    };
  }
  const url = [action.url, action.webhook, action.webhookUrl, action.webhook_url].find(
    (v): v is string => typeof v === "string" && v.length > 0,
  );
  const exact = (Object.entries(WEBHOOK_ACTIONS) as [WebhookKind, string][]).find(
    ([, v]) => v === id,
  )?.[0];
  const kind: WebhookKind | undefined =
    exact ??
    (/compatible/.test(lower)
      ? "slackcompatible"
      : /slack/.test(lower)
        ? "slack"
        : /discord/.test(lower)
          ? "discord"
          : /teams/.test(lower)
            ? "teams"
            : /google|gchat|hangouts/.test(lower)
              ? "googlechat"
              : /webhook|notify_event_service|sentryapp/.test(lower)
                ? "webhook"
                : undefined);
  if (!kind) return `unknown action id ${id.slice(0, 200) || "(none)"}`;
  if (!url) return "the action has no URL";
  return { kind, url };
}

/** The channel an action delivers to, for the storm guard: same channel, same counter. */
export function channelOf(target: DeliveryTarget): string {
  if (target.kind === "email")
    return target.all ? "email:all" : `email:${[...target.members].sort().join(",")}`;
  if (target.kind === "oncall") {
    // The same credentials and destination are the same channel; the sealed text itself
    // differs per save, so the clear fields and a hash of the sealed text name it.
    const { name: _name, ...clear } = target.fields;
    const digest = createHash("sha256")
      .update(target.sealed ?? "")
      .digest("hex")
      .slice(0, 16);
    return `${target.vendor}:${JSON.stringify(clear)}:${digest}`;
  }
  return `${target.kind}:${target.url}`;
}

import type { Db } from "../../db/connection";
import { AppError } from "../../errors";
import { seal, unseal } from "../../security/sealed";
import { type OnCallVendor, SECRET_FIELDS, vendorOf } from "./oncall";
import { checkWebhookUrl } from "./ssrf";

/**
 * An on-call action as saved: its clear fields checked (URLs against the outbound rule), its
 * credentials sealed into `sealed` and dropped from the clear JSON; and as shown: without them.
 * A save that leaves a credential blank keeps the one sealed before (an editor that never
 * saw the secret cannot send it back).
 */
const REQUIRED: Record<OnCallVendor, readonly string[]> = {
  pagerduty: ["routingKey"],
  opsgenie: ["apiKey"],
  telegram: ["botToken", "chatId"],
  ntfy: ["serverUrl", "topic"],
  zulip: ["siteUrl", "email", "apiKey", "stream"],
  mattermost: ["webhookUrl"],
  pushover: ["appToken", "userKey"],
};
const URL_FIELDS = ["apiUrl", "serverUrl", "siteUrl", "webhookUrl"];
const CLEAR_FIELDS = [
  "name",
  "apiUrl",
  "chatId",
  "serverUrl",
  "topic",
  "siteUrl",
  "email",
  "stream",
];

export function isOnCallAction(
  action: unknown,
): action is Record<string, unknown> & { id: string } {
  return (
    !!action &&
    typeof action === "object" &&
    typeof (action as { id?: unknown }).id === "string" &&
    vendorOf((action as { id: string }).id) !== undefined
  );
}

export async function storeOnCallAction(
  db: Db,
  action: Record<string, unknown> & { id: string },
  previous: Record<string, unknown> | undefined,
  path: string,
): Promise<Record<string, unknown>> {
  const vendor = vendorOf(action.id) as OnCallVendor;
  const str = (k: string) => (typeof action[k] === "string" ? (action[k] as string).trim() : "");
  const secrets: Record<string, string> = {};
  for (const k of SECRET_FIELDS[vendor]) if (str(k)) secrets[k] = str(k);
  const keep = typeof previous?.sealed === "string" && previous.id === action.id;
  const out: Record<string, unknown> = { id: action.id };
  for (const k of CLEAR_FIELDS) if (str(k)) out[k] = str(k).slice(0, 2000);
  for (const k of REQUIRED[vendor]) {
    const secret = SECRET_FIELDS[vendor].includes(k);
    if (secret ? !secrets[k] && !keep : !out[k])
      throw new AppError("bad_request", `${path}.${k}: required for ${vendor}`);
  }
  for (const k of URL_FIELDS) {
    const url = (out[k] as string | undefined) ?? secrets[k];
    if (!url) continue;
    const problem = await checkWebhookUrl(url);
    if (problem) throw new AppError("bad_request", `${path}.${k}: ${problem}`);
  }
  if (Object.keys(secrets).length > 0) {
    // Fields not given again keep their sealed values: merged before sealing anew.
    const before = keep
      ? ((await unseal<Record<string, string>>(db, previous?.sealed as string)) ?? {})
      : {};
    out.sealed = await seal(db, { ...before, ...secrets });
  } else if (keep) out.sealed = previous?.sealed;
  return out;
}

/** An action as an API or page shows it: credentials replaced by whether they are set. */
export function publicAction<A extends { id: string }>(action: A): A {
  const vendor = vendorOf(action.id);
  if (!vendor) return action;
  const copy: Record<string, unknown> = { ...action };
  const had = typeof copy.sealed === "string";
  delete copy.sealed;
  for (const k of SECRET_FIELDS[vendor]) delete copy[k];
  return { ...(copy as A), credentials: had ? "set" : "missing" };
}

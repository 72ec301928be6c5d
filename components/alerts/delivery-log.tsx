import Link from "next/link";
import { Badge, type Tone } from "@/components/ui/badge";
import { RelativeTime } from "@/components/ui/relative-time";
import { HEADLINES } from "@/src/alerts/delivery/content";
import { type DeliveryLogEntry, deliveryLog } from "@/src/alerts/delivery/log";
import { getDb } from "@/src/db/connection";
import { mailConfigured } from "@/src/mail/transport";

/**
 * A rule's (or cron monitor's) recent deliveries and failures, each with its attempts (when,
 * how long, HTTP status, error). Server component: the rule page renders
 * `<RuleDeliveryLog orgId orgSlug ruleId />` in the slot it leaves for it. Every value is
 * rendered as text (errors quote receivers' answers).
 */
const STATUS_TONES: Record<string, Tone> = {
  delivered: "ok",
  failed: "danger",
  pending: "warning",
  held: "neutral",
};

const STATUS_LABELS: Record<string, string> = {
  delivered: "Delivered",
  failed: "Failed",
  pending: "Pending",
  held: "Held for the hourly digest",
};

export async function RuleDeliveryLog({
  orgId,
  orgSlug,
  ruleId,
  monitorId,
  limit = 30,
}: {
  orgId: number;
  orgSlug: string;
  ruleId?: number;
  monitorId?: number;
  limit?: number;
}) {
  const entries = await deliveryLog(getDb(), { organizationId: orgId, ruleId, monitorId }, limit);
  return <DeliveryLog entries={entries} orgSlug={orgSlug} mailConfigured={mailConfigured()} />;
}

export function DeliveryLog({
  entries,
  orgSlug,
  mailConfigured,
  now = Date.now(),
}: {
  entries: DeliveryLogEntry[];
  orgSlug: string;
  mailConfigured: boolean;
  now?: number;
}) {
  return (
    <section aria-labelledby="delivery-log-heading" className="grid gap-2">
      <h2 id="delivery-log-heading" className="text-base font-semibold">
        Recent deliveries
      </h2>
      {!mailConfigured && entries.some((e) => e.channel.startsWith("Email")) && (
        <p role="note" className="text-sm text-warning">
          No mail server is configured (FAULTLINE_SMTP_URL): email deliveries wait until one is.
        </p>
      )}
      {entries.length === 0 ? (
        <p className="text-muted">Nothing delivered yet.</p>
      ) : (
        <table aria-label="Deliveries" className="w-full border-collapse text-sm">
          <thead>
            <tr className="border-b border-line text-left text-xs text-muted uppercase">
              <th scope="col" className="py-1 pr-4">
                When
              </th>
              <th scope="col" className="py-1 pr-4">
                Why
              </th>
              <th scope="col" className="py-1 pr-4">
                Channel
              </th>
              <th scope="col" className="py-1 pr-4">
                Status
              </th>
              <th scope="col" className="py-1">
                Attempts
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id} className="border-b border-line align-top [&>td]:py-1.5 [&>td]:pr-4">
                <td className="whitespace-nowrap">
                  <RelativeTime ms={e.createdAt} now={now} />
                </td>
                <td>
                  {HEADLINES[e.reason] ?? e.reason}
                  {e.issueId !== null && (
                    <>
                      {" "}
                      <Link href={`/${orgSlug}/issues/${e.issueId}`}>issue {e.issueId}</Link>
                    </>
                  )}
                </td>
                <td className="break-all">{e.channel}</td>
                <td>
                  <Badge tone={STATUS_TONES[e.status] ?? "neutral"}>
                    {STATUS_LABELS[e.status] ?? e.status}
                  </Badge>
                  {e.status === "pending" && e.attempts > 0 && (
                    <div className="text-xs text-muted">
                      next try <RelativeTime ms={e.nextAttemptAt} now={now} />
                    </div>
                  )}
                  {e.lastError && e.status !== "delivered" && (
                    <div className="text-xs break-words text-muted">{e.lastError}</div>
                  )}
                </td>
                <td>
                  {e.history.length === 0 ? (
                    <span className="text-muted">none yet</span>
                  ) : (
                    <details>
                      <summary>{e.history.length}</summary>
                      <ol className="m-0 grid gap-1 pl-4 text-xs">
                        {e.history.map((a, i) => (
                          // biome-ignore lint/suspicious/noArrayIndexKey: attempts never reorder
                          <li key={i}>
                            <RelativeTime ms={a.attemptedAt} now={now} /> · {a.durationMs} ms ·{" "}
                            {a.httpStatus !== null ? `HTTP ${a.httpStatus}` : "no HTTP answer"} ·{" "}
                            {a.outcome}
                            {a.error ? ` · ${a.error}` : ""}
                          </li>
                        ))}
                      </ol>
                    </details>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getDb } from "@/src/db/connection";
import { type PublicStatusPage, publicStatusPage } from "@/src/uptime/status-page";

export const metadata: Metadata = { title: "Status" };

const STATE_TEXT = {
  up: ["Operational", "bg-ok"],
  down: ["Down", "bg-danger"],
  pending: ["Not checked yet", "bg-line"],
  paused: ["Paused", "bg-line"],
} as const;

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * An organization's public status page (src/uptime/status-page.ts): no sign-in, and nothing
 * but what its admins chose to publish. A page that is off or unknown is a plain 404.
 */
export default async function StatusPage({ params }: { params: Promise<{ slug: string }> }) {
  const slug = (await params).slug;
  if (!/^[a-z0-9-]{1,64}$/.test(slug)) notFound();
  const data = await publicStatusPage(getDb(), slug);
  if (!data) notFound();
  const down = data.monitors.filter((m) => m.state === "down").length;
  return (
    <main className="mx-auto max-w-3xl px-4 py-8">
      <h1 className="mb-2 text-2xl font-semibold" data-status-title>
        {data.title}
      </h1>
      <p
        className={`mb-6 rounded px-3 py-2 text-sm font-medium ${down > 0 ? "bg-danger/10 text-danger" : "bg-ok/10 text-ok"}`}
        data-overall
      >
        {down > 0 ? `Down: ${down} of ${data.monitors.length} services` : "All systems operational"}
      </p>
      <ul className="mb-8 space-y-5">
        {data.monitors.map((m) => (
          <MonitorRow key={m.position} monitor={m} />
        ))}
      </ul>
      <h2 className="mb-2 font-semibold">Incidents in the last 90 days</h2>
      {data.incidents.length === 0 ? (
        <p className="text-sm text-muted">No incidents.</p>
      ) : (
        <ul className="space-y-1 text-sm" data-incident-history>
          {data.incidents.map((i) => (
            <li key={`${i.monitor}-${i.startedAt}`}>
              <span className="font-medium">{i.monitor}</span> was down from {when(i.startedAt)}
              {i.resolvedAt === null ? " and still is" : ` to ${when(i.resolvedAt)}`}.
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}

function MonitorRow({ monitor: m }: { monitor: PublicStatusPage["monitors"][number] }) {
  const [text, color] = STATE_TEXT[m.state];
  const known = m.days.filter((d) => d.share !== null);
  const overall =
    known.length === 0 ? null : known.reduce((a, d) => a + (d.share ?? 0), 0) / known.length;
  return (
    <li data-status-monitor>
      <div className="mb-1 flex items-baseline justify-between gap-3">
        <span className="font-medium">{m.name}</span>
        <span className="flex items-center gap-1.5 text-sm" data-state={m.state}>
          <span aria-hidden className={`inline-block h-2 w-2 rounded-full ${color}`} />
          {text}
        </span>
      </div>
      {m.url && <div className="mb-1 break-all text-xs text-muted">{m.url}</div>}
      <div
        className="flex h-6 gap-px"
        role="img"
        aria-label={`Daily uptime of ${m.name}, last 90 days`}
      >
        {m.days.map((d) => (
          <span
            key={d.day}
            title={`${day(d.day)}: ${d.share === null ? "no data" : `${(d.share * 100).toFixed(2)}%`}`}
            className={`flex-1 rounded-sm ${d.share === null ? "bg-line" : d.share >= 0.999 ? "bg-ok" : d.share >= 0.95 ? "bg-warning" : "bg-danger"}`}
          />
        ))}
      </div>
      <div className="mt-1 flex justify-between text-xs text-muted">
        <span>90 days ago</span>
        <span>{overall === null ? "no data" : `${(overall * 100).toFixed(2)}% uptime`}</span>
        <span>Today</span>
      </div>
    </li>
  );
}

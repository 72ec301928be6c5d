import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { IssueFeedback } from "@/components/feedback/issue-feedback";
import { Breadcrumbs } from "@/components/issue/breadcrumbs";
import { EventContext } from "@/components/issue/event-context";
import { EventNavigation } from "@/components/issue/event-navigation";
import { IngestNotes } from "@/components/issue/ingest-notes";
import { IssueHeader } from "@/components/issue/issue-header";
import { ExceptionChain, type FramesChoice } from "@/components/stacktrace/exception-chain";
import { StacktraceView } from "@/components/stacktrace/stacktrace-view";
import { EventTraceLink } from "@/components/traces/event-trace-link";
import { LinkTabs } from "@/components/ui/tabs";
import { TruncatedText } from "@/components/ui/truncated-text";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import type { NormalizedEvent } from "@/src/events/types";
import { type FrequencyRange, findIssueEvent, findOrgIssue } from "@/src/issues/detail-queries";
import { issueIdSchema, issuePageSearchSchema } from "@/src/issues/detail-schemas";
import { OrgNav, page } from "../../org-nav";
import { IssueFrequency, IssueTags, SidebarSkeleton } from "./sidebar";
import { StatusCondition, TeamActivity, TeamSidebar, TeamStatus } from "./team";

export const metadata: Metadata = { title: "Issue · Faultline" };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function IssuePage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { org, id } = await params;
  const ctx = await withOrg(org, { need: "org.read" });
  const issueId = issueIdSchema.safeParse(id);
  const raw = await searchParams;
  const search = issuePageSearchSchema.safeParse({
    event: first(raw.event),
    range: first(raw.range),
    frames: first(raw.frames),
  });
  if (!issueId.success || !search.success) notFound();
  const db = getDb();
  // Another organization's issue and no issue at all answer the same 404.
  const issue = await findOrgIssue(db, ctx.org.id, issueId.data);
  if (!issue) notFound();
  const chosen = await findIssueEvent(db, issue, search.data.event);
  if (search.data.event && !chosen) notFound();

  const { range } = search.data;
  const base = `/${ctx.org.slug}/issues/${issue.id}`;
  const href = (q: { event?: string; range?: FrequencyRange; frames?: "minified" }) => {
    const qs = new URLSearchParams();
    if (q.event) qs.set("event", q.event);
    if (q.range && q.range !== "24h") qs.set("range", q.range);
    if (q.frames) qs.set("frames", q.frames);
    const s = qs.toString();
    return s ? `${base}?${s}` : base;
  };
  const now = Date.now();
  const triage = can(ctx.role, "issues.write") && <TeamStatus ctx={ctx} issue={issue} />;

  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="issues" />
      <p className="mb-2 flex gap-4 text-xs">
        <Link href={`/${ctx.org.slug}/issues`}>← All issues</Link>
        <Link href={`/${ctx.org.slug}/issues/${issue.id}/merged`}>
          Merged fingerprints (unmerge)
        </Link>
      </p>
      <IssueHeader issue={issue} now={now} actions={triage || undefined} />
      <StatusCondition issue={issue} />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <div className="min-w-0">
          {chosen ? (
            <>
              <EventNavigation
                eventId={chosen.event.event_id}
                timestamp={chosen.event.timestamp}
                now={now}
                olderHref={chosen.older && href({ event: chosen.older, range })}
                newerHref={chosen.newer && href({ event: chosen.newer, range })}
                latestHref={chosen.newer && href({ range })}
              />
              <EventTraceLink orgSlug={ctx.org.slug} contexts={chosen.event.contexts} />
              <EventBody
                event={chosen.event}
                frames={{
                  shown: search.data.frames,
                  originalHref: href({ event: search.data.event, range }),
                  minifiedHref: href({ event: search.data.event, range, frames: "minified" }),
                }}
              />
            </>
          ) : (
            <p className="text-muted">This issue has no stored events.</p>
          )}
          <Suspense fallback={null}>
            <IssueFeedback
              issue={issue}
              orgSlug={ctx.org.slug}
              canTriage={can(ctx.role, "issues.write")}
            />
          </Suspense>
        </div>
        <aside aria-label="Triage and statistics" className="flex flex-col gap-5">
          <TeamSidebar ctx={ctx} issue={issue} />
          <TeamActivity ctx={ctx} issue={issue} now={now} />
          <section aria-labelledby="frequency-heading">
            <h2 id="frequency-heading" className="mb-1.5 text-sm font-semibold">
              Frequency
            </h2>
            <LinkTabs
              label="Chart range"
              current={range}
              tabs={[
                {
                  key: "24h",
                  label: "24 hours",
                  href: href({ event: search.data.event, range: "24h" }),
                },
                {
                  key: "30d",
                  label: "30 days",
                  href: href({ event: search.data.event, range: "30d" }),
                },
              ]}
            />
            <div className="mt-2">
              <Suspense fallback={<SidebarSkeleton label="Loading the chart" />}>
                <IssueFrequency issueId={issue.id} range={range} now={now} />
              </Suspense>
            </div>
          </section>
          <section aria-labelledby="tags-heading">
            <h2 id="tags-heading" className="mb-1.5 text-sm font-semibold">
              Tags
            </h2>
            <Suspense fallback={<SidebarSkeleton label="Loading tags" />}>
              <IssueTags issueId={issue.id} />
            </Suspense>
          </section>
        </aside>
      </div>
    </main>
  );
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function EventBody({ event, frames }: { event: NormalizedEvent; frames: FramesChoice }) {
  const crashed = event.threads?.values.find((t) => t.crashed && t.stacktrace);
  return (
    <>
      {event.message && (
        <section aria-label="Message" className="mb-5">
          <h2 className="mb-1.5 text-sm font-semibold">Message</h2>
          <p className="rounded border border-line bg-surface p-2 font-mono text-xs">
            <TruncatedText text={event.message} max={1000} />
          </p>
        </section>
      )}
      {event.exception && event.exception.values.length > 0 && (
        <section aria-label="Exception" className="mb-5">
          <h2 className="mb-1.5 text-sm font-semibold">Exception</h2>
          <ExceptionChain values={event.exception.values} frames={frames} />
        </section>
      )}
      {(event.stacktrace ?? crashed?.stacktrace) && (
        <section aria-label="Stack trace" className="mb-5">
          <h2 className="mb-1.5 text-sm font-semibold">Stack trace</h2>
          <StacktraceView stacktrace={event.stacktrace ?? crashed?.stacktrace ?? { frames: [] }} />
        </section>
      )}
      <section aria-label="Breadcrumbs" className="mb-5">
        <h2 className="mb-1.5 text-sm font-semibold">Breadcrumbs</h2>
        <Breadcrumbs crumbs={event.breadcrumbs} />
      </section>
      <EventContext event={event} />
      <IngestNotes event={event} />
    </>
  );
}

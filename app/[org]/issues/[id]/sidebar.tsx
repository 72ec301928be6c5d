import { FrequencyChart } from "@/components/issue/frequency-chart";
import { TagDistributions } from "@/components/issue/tag-distributions";
import { getDb } from "@/src/db/connection";
import {
  type FrequencyRange,
  issueFrequency,
  issueTagDistributions,
} from "@/src/issues/detail-queries";

/** The slower parts of the issue page, each streamed in behind its own Suspense boundary. */
export async function IssueFrequency({
  issueId,
  range,
  now,
}: {
  issueId: number;
  range: FrequencyRange;
  now: number;
}) {
  const buckets = await issueFrequency(getDb(), issueId, range, now);
  return <FrequencyChart buckets={buckets} range={range} />;
}

export async function IssueTags({ issueId }: { issueId: number }) {
  return <TagDistributions tags={await issueTagDistributions(getDb(), issueId)} />;
}

export function SidebarSkeleton({ label }: { label: string }) {
  return <div role="status" aria-label={label} className="h-20 animate-pulse rounded bg-surface" />;
}

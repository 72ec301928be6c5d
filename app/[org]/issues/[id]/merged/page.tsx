import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { UnmergeForm } from "@/components/issues/unmerge-form";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { issueFingerprints } from "@/src/issues/bulk/unmerge";
import { findOrgIssue } from "@/src/issues/detail-queries";
import { issueIdSchema } from "@/src/issues/detail-schemas";
import { OrgNav, page } from "../../../org-nav";

export const metadata: Metadata = { title: "Merged fingerprints · Faultline" };

/** The fingerprints an issue stands for (its own and those merged into it), to unmerge some. */
export default async function MergedPage({
  params,
}: {
  params: Promise<{ org: string; id: string }>;
}) {
  const { org, id } = await params;
  const ctx = await withOrg(org, { need: "org.read" });
  const issueId = issueIdSchema.safeParse(id);
  if (!issueId.success) notFound();
  const db = getDb();
  const issue = await findOrgIssue(db, ctx.org.id, issueId.data);
  if (!issue) notFound();
  const prints = await issueFingerprints(db, {
    id: issue.id,
    project_id: issue.project_id,
    fingerprint: issue.fingerprint,
  });
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="issues" />
      <p className="mb-1 text-xs text-muted">
        <Link href={`/${ctx.org.slug}/issues/${issue.id}`}>← {issue.title.slice(0, 200)}</Link>
      </p>
      <h1 className="mb-2 text-lg font-semibold">Merged fingerprints</h1>
      <p className="mb-3 max-w-3xl text-muted">
        Each fingerprint is one way events were grouped. Unmerging moves a fingerprint&apos;s
        events, and its later ones, to an issue of their own.
      </p>
      <UnmergeForm
        org={ctx.org.slug}
        issueId={issue.id}
        canWrite={can(ctx.role, "issues.write")}
        fingerprints={prints.map((f) => ({
          fingerprint: f.fingerprint,
          primary: f.primary,
          events: f.events,
          latestTitle: f.latest?.title ?? null,
          mergedAt: f.mergedAt,
        }))}
      />
    </main>
  );
}

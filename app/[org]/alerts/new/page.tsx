import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { RuleEditor } from "@/components/alerts/rule-editor";
import { DEFAULT_RULE } from "@/src/alerts/rules/mutations";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { mailConfigured } from "@/src/mail/transport";
import { findOrgProject } from "@/src/projects/queries";
import { OrgNav, page } from "../../org-nav";
import { saveRule } from "../actions";

export const metadata: Metadata = { title: "New alert rule · Faultline" };

const Query = z.object({ project: z.string().min(1).max(100) });

export default async function NewRulePage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const ctx = await withOrg((await params).org, { need: "alerts.write" });
  const q = Query.safeParse(await searchParams);
  if (!q.success) notFound();
  const project = await findOrgProject(getDb(), ctx.org.id, q.data.project);
  if (!project) notFound();
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="alerts" />
      <h1 className="mb-3 text-lg font-semibold">New alert rule for {project.slug}</h1>
      <RuleEditor
        action={saveRule}
        org={ctx.org.slug}
        project={project.slug}
        initial={{ ...DEFAULT_RULE, name: "", conditions: [...DEFAULT_RULE.conditions] }}
        readOnly={false}
        smtpConfigured={mailConfigured()}
      />
    </main>
  );
}

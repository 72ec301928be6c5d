import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { RuleDeliveryLog } from "@/components/alerts/delivery-log";
import { RuleEditor } from "@/components/alerts/rule-editor";
import { publicAction } from "@/src/alerts/delivery/oncall-actions";
import { findRule } from "@/src/alerts/rules/queries";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { mailConfigured } from "@/src/mail/transport";
import { findOrgProject } from "@/src/projects/queries";
import { OrgNav, page } from "../../../org-nav";
import { deleteRule, saveRule } from "../../actions";
import { sendTestNotificationAction } from "../../delivery-actions";

export const metadata: Metadata = { title: "Alert rule · Faultline" };

const Params = z.object({
  org: z.string(),
  project: z.string().min(1).max(100),
  ruleId: z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
});

/** One rule: the editor (read-only for members and viewers) and its recent deliveries. */
const TEST_MESSAGES: Record<string, string> = {
  sent: "Test notification queued: its deliveries appear below.",
  failed: "The test notification could not be queued.",
  not_found: "The rule was not found.",
};

export default async function RulePage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; project: string; ruleId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { test } = await searchParams;
  const parsed = Params.safeParse(await params);
  if (!parsed.success) notFound();
  const ctx = await withOrg(parsed.data.org, { need: "org.read" });
  const db = getDb();
  const project = await findOrgProject(db, ctx.org.id, parsed.data.project);
  if (!project) notFound();
  const rule = await findRule(db, Number(project.id), parsed.data.ruleId);
  if (!rule) notFound();
  const writable = can(ctx.role, "alerts.write");
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="alerts" />
      <p className="mb-1 text-xs text-muted">
        <Link href={`/${ctx.org.slug}/alerts`}>Alert rules</Link> / {project.slug}
      </p>
      <h1 className="mb-3 text-lg font-semibold">{rule.name}</h1>
      {!writable && (
        <p className="mb-3 text-xs text-muted">Read only: admins and owners change rules.</p>
      )}
      <RuleEditor
        action={saveRule}
        org={ctx.org.slug}
        project={project.slug}
        ruleId={rule.id}
        initial={{
          name: rule.name,
          environment: rule.environment,
          actionMatch: rule.actionMatch,
          filterMatch: rule.filterMatch,
          frequency: rule.frequency,
          conditions: rule.conditions,
          filters: rule.filters,
          // Sealed credentials stay on the server; a save without them keeps them.
          actions: rule.actions.map((a) => publicAction(a)),
        }}
        readOnly={!writable}
        smtpConfigured={mailConfigured()}
      />
      {writable && (
        <>
          <p className="mt-4 text-xs text-muted">
            Webhook signing secret (X-Faultline-Signature: sha256=HMAC of the body):{" "}
            <code>{rule.secret}</code>
          </p>
          <form action={deleteRule} className="mt-4">
            <input type="hidden" name="org" value={ctx.org.slug} />
            <input type="hidden" name="project" value={project.slug} />
            <input type="hidden" name="ruleId" value={rule.id} />
            <button type="submit" className="rounded border border-line px-2 py-1 hover:bg-raised">
              Delete rule
            </button>
          </form>
        </>
      )}
      <section className="mt-6 grid gap-3" data-slot="recent-deliveries">
        {writable && (
          <form action={sendTestNotificationAction}>
            <input type="hidden" name="org" value={ctx.org.slug} />
            <input type="hidden" name="project" value={project.slug} />
            <input type="hidden" name="ruleId" value={rule.id} />
            <button type="submit" className="rounded border border-line px-2 py-1 hover:bg-raised">
              Send a test notification
            </button>
          </form>
        )}
        {typeof test === "string" && TEST_MESSAGES[test] && (
          <p role="status" className="text-sm">
            {TEST_MESSAGES[test]}
          </p>
        )}
        <RuleDeliveryLog orgId={ctx.org.id} orgSlug={ctx.org.slug} ruleId={rule.id} />
      </section>
    </main>
  );
}

import type { Metadata } from "next";
import { withOrg } from "@/src/auth/with-org";
import { OrgNav, page } from "../../org-nav";
import { ActionForm } from "../members/action-form";
import { deleteOrganization } from "./actions";

export const metadata: Metadata = { title: "Organization · Faultline" };

/** The owner's page of the organization itself: deleting it. */
export default async function OrganizationSettingsPage({
  params,
}: {
  params: Promise<{ org: string }>;
}) {
  const ctx = await withOrg((await params).org, { need: "org.delete" });
  return (
    <main style={page}>
      <OrgNav ctx={ctx} />
      <h1 className="mb-3 text-lg font-semibold">Organization</h1>
      <section
        aria-labelledby="delete-org"
        className="max-w-2xl rounded border border-danger/40 p-4"
      >
        <h2 id="delete-org" className="mb-1 text-base font-semibold text-danger">
          Delete {ctx.org.name}
        </h2>
        <p className="mb-2 text-muted">
          Everyone loses access at once and its DSN keys stop accepting events; its projects,
          issues, events, traces, logs, attachments and source maps are then removed in the
          background. This cannot be undone. Type <code>{ctx.org.slug}</code> to confirm.
        </p>
        <ActionForm action={deleteOrganization} submitLabel="Delete organization">
          <input type="hidden" name="org" value={ctx.org.slug} />
          <label htmlFor="confirm-slug">Organization address</label>
          <input id="confirm-slug" name="confirm" autoComplete="off" />
        </ActionForm>
      </section>
    </main>
  );
}

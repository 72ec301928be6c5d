import type { Metadata } from "next";
import Link from "next/link";
import { ActionForm } from "@/components/projects/action-form";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { statusPageSettings } from "@/src/uptime/status-page";
import { OrgNav, page } from "../../org-nav";
import { saveStatusPageAction } from "../actions";

export const metadata: Metadata = { title: "Status page · Faultline" };

const input = "rounded border border-line bg-surface px-2 py-1 text-sm";

/** The organization's public status page: off until an admin turns it on here. */
export default async function StatusPageSettings({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const { page: sp, monitors } = await statusPageSettings(getDb(), ctx.org.id);
  const mayEdit = can(ctx.role, "alerts.write");
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="uptime" />
      <p className="mb-1 text-xs">
        <Link href={`/${ctx.org.slug}/uptime`}>← Uptime</Link>
      </p>
      <h1 className="mb-2 text-lg font-semibold">Status page</h1>
      <p className="mb-4 text-sm text-muted">
        A public page, readable without signing in, with the state and 90-day history of the
        monitors chosen below. It shows their names; their URLs only where ticked.
        {sp?.enabled && (
          <>
            {" "}
            It is on at <Link href={`/status/${sp.slug}`}>/status/{sp.slug}</Link>.
          </>
        )}
      </p>
      {mayEdit ? (
        <ActionForm
          action={saveStatusPageAction}
          fields={{ org: ctx.org.slug }}
          submitLabel="Save status page"
          variant="primary"
          className="flex-col items-start"
        >
          <label className="flex flex-col text-xs">
            Address (/status/…)
            <input name="slug" required defaultValue={sp?.slug ?? ctx.org.slug} className={input} />
          </label>
          <label className="flex flex-col text-xs">
            Title
            <input
              name="title"
              required
              defaultValue={sp?.title ?? `${ctx.org.name} status`}
              className={`${input} w-80`}
            />
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="enabled" defaultChecked={sp?.enabled ?? false} /> Published
          </label>
          <fieldset className="text-sm">
            <legend className="mb-1 text-xs text-muted">Monitors on the page</legend>
            {monitors.length === 0 && <p className="text-muted">No uptime monitors yet.</p>}
            {monitors.map((m) => (
              <div key={m.id} className="flex gap-4">
                <label className="flex items-center gap-2">
                  <input type="checkbox" name="monitors" value={m.id} defaultChecked={m.chosen} />
                  {m.name}
                </label>
                <label className="flex items-center gap-2 text-xs text-muted">
                  <input type="checkbox" name="showUrl" value={m.id} defaultChecked={m.showUrl} />
                  show its URL
                </label>
              </div>
            ))}
          </fieldset>
        </ActionForm>
      ) : (
        <p className="text-sm">Admins and owners change the status page.</p>
      )}
    </main>
  );
}

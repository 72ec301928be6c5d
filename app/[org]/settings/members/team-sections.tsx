import { RelativeTime } from "@/components/ui/relative-time";
import { can, type Role } from "@/src/auth/permissions";
import type { OrgContext } from "@/src/auth/with-org";
import type { PendingInvitation } from "@/src/orgs/invitations";
import type { MemberRow } from "@/src/orgs/queries";
import { ActionForm } from "./action-form";
import { invite, leaveOrganization, revokeInvitation, transferOwnership } from "./actions";

/** Invite by email, and the invitations not used yet (revocable). */
export function Invitations({
  org,
  pending,
  grantable,
  now,
}: {
  org: string;
  pending: PendingInvitation[];
  grantable: readonly Role[];
  now: number;
}) {
  const orgField = <input type="hidden" name="org" value={org} />;
  return (
    <section className="mt-8 max-w-3xl" aria-labelledby="invite-heading">
      <h2 id="invite-heading" className="mb-1 text-base font-semibold">
        Invite by email
      </h2>
      <p className="mb-3 text-muted">
        They get a link that works once, for 7 days, and choose their own password. Without a mail
        server the link is shown here for you to send.
      </p>
      <ActionForm action={invite} submitLabel="Send invitation">
        {orgField}
        <label htmlFor="invite-email">Email</label>
        <input id="invite-email" name="email" type="email" required />
        <label htmlFor="invite-role">Role</label>
        <select id="invite-role" name="role" defaultValue="member">
          {grantable.map((role) => (
            <option key={role}>{role}</option>
          ))}
        </select>
      </ActionForm>
      <h3 className="mt-5 mb-1 text-sm font-semibold">Pending invitations</h3>
      {pending.length === 0 ? (
        <p className="text-muted">None.</p>
      ) : (
        <table className="w-full border-collapse" aria-label="Pending invitations">
          <thead>
            <tr className="border-b border-line text-left text-xs text-muted uppercase">
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Invited</th>
              <th scope="col">Expires</th>
              <th scope="col">Manage</th>
            </tr>
          </thead>
          <tbody>
            {pending.map((inv) => (
              <tr key={inv.id} className="border-b border-line align-top [&>td]:py-2 [&>td]:pr-4">
                <td>{inv.email}</td>
                <td>{inv.role}</td>
                <td>
                  <RelativeTime ms={inv.createdAt} now={now} />
                  {inv.invitedBy && <span className="text-muted"> by {inv.invitedBy}</span>}
                </td>
                <td className={inv.expired ? "text-danger" : undefined}>
                  {inv.expired ? "expired " : ""}
                  <RelativeTime ms={inv.expiresAt} now={now} />
                </td>
                <td>
                  {(inv.role !== "owner" || grantable.includes("owner")) && (
                    <ActionForm
                      action={revokeInvitation}
                      submitLabel="Revoke"
                      submitAriaLabel={`Revoke the invitation of ${inv.email}`}
                    >
                      {orgField}
                      <input type="hidden" name="invitationId" value={inv.id} />
                    </ActionForm>
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

/** Leave the organization (anyone), and hand it to another member (owners). */
export function LeaveAndTransfer({ ctx, members }: { ctx: OrgContext; members: MemberRow[] }) {
  const orgField = <input type="hidden" name="org" value={ctx.org.slug} />;
  const others = members.filter((m) => m.userId !== ctx.user.id);
  const owners = members.filter((m) => m.role === "owner").length;
  return (
    <section className="mt-8 max-w-2xl" aria-labelledby="membership-heading">
      <h2 id="membership-heading" className="mb-1 text-base font-semibold">
        Your membership
      </h2>
      {can(ctx.role, "owners.write") && others.length > 0 && (
        <div className="mb-4">
          <p className="mb-2 text-muted">
            Transfer ownership: the member you choose becomes owner and you become an admin.
          </p>
          <ActionForm action={transferOwnership} submitLabel="Transfer ownership">
            {orgField}
            <label htmlFor="transfer-to">New owner</label>
            <select id="transfer-to" name="userId">
              {others.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.email} ({m.role})
                </option>
              ))}
            </select>
          </ActionForm>
        </div>
      )}
      <p className="mb-2 text-muted">
        {ctx.role === "owner" && owners <= 1
          ? "You are the only owner: make someone else owner before you leave."
          : `Leave ${ctx.org.name}: you lose access to it, and your issues are unassigned.`}
      </p>
      <ActionForm action={leaveOrganization} submitLabel="Leave organization">
        {orgField}
      </ActionForm>
    </section>
  );
}

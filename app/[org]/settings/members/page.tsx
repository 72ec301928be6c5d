import type { Metadata } from "next";
import Link from "next/link";
import { can, ROLES } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listPendingInvitations } from "@/src/orgs/invitations";
import { listMembers } from "@/src/orgs/queries";
import { OrgNav, page } from "../../org-nav";
import { ActionForm } from "./action-form";
import { addMember, changeRole, removeMember } from "./actions";
import { Invitations, LeaveAndTransfer } from "./team-sections";

export const metadata: Metadata = { title: "Members · Faultline" };

export default async function MembersPage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const [rows, pending] = await Promise.all([
    listMembers(getDb(), ctx.org.id),
    can(ctx.role, "members.write") ? listPendingInvitations(getDb(), ctx.org.id) : [],
  ]);
  const managesMembers = can(ctx.role, "members.write");
  const managesOwners = can(ctx.role, "owners.write");
  const grantable = ROLES.filter((role) => role !== "owner" || managesOwners);
  const orgField = <input type="hidden" name="org" value={ctx.org.slug} />;

  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="members" />
      <h1 className="mb-3 text-lg font-semibold">Members</h1>
      {can(ctx.role, "sso.write") && (
        <p className="mb-3">
          <Link href={`/${ctx.org.slug}/settings/sso`}>Single sign-on settings</Link>
        </p>
      )}
      <table className="w-full border-collapse">
        <thead>
          <tr className="border-b border-line text-left text-xs text-muted uppercase">
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            {managesMembers && <th scope="col">Manage</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((member) => (
            <tr
              key={member.userId}
              className="border-b border-line align-top [&>td]:py-2 [&>td]:pr-4"
            >
              <td>{member.name}</td>
              <td>{member.email}</td>
              <td>{member.role}</td>
              {managesMembers && (
                <td>
                  {(member.role !== "owner" || managesOwners) && (
                    <div className="flex flex-wrap gap-4">
                      <ActionForm
                        action={changeRole}
                        submitLabel="Change role"
                        submitAriaLabel={`Change role of ${member.email}`}
                      >
                        {orgField}
                        <input type="hidden" name="userId" value={member.userId} />
                        <label htmlFor={`role-${member.userId}`} className="sr-only">
                          Role of {member.email}
                        </label>
                        <select id={`role-${member.userId}`} name="role" defaultValue={member.role}>
                          {grantable.map((role) => (
                            <option key={role}>{role}</option>
                          ))}
                        </select>
                      </ActionForm>
                      <ActionForm
                        action={removeMember}
                        submitLabel="Remove"
                        submitAriaLabel={`Remove ${member.email}`}
                      >
                        {orgField}
                        <input type="hidden" name="userId" value={member.userId} />
                      </ActionForm>
                    </div>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>

      {managesMembers && (
        <Invitations org={ctx.org.slug} pending={pending} grantable={grantable} now={Date.now()} />
      )}

      {managesMembers && (
        <section className="mt-8 max-w-2xl">
          <h2 className="mb-1 text-base font-semibold">Add a member</h2>
          <p className="mb-3 text-muted">
            Someone without an account gets one, with a temporary password shown to you once; pass
            it on to them.
          </p>
          <ActionForm action={addMember} submitLabel="Add member">
            {orgField}
            <label htmlFor="new-member-email">Email</label>
            <input id="new-member-email" name="email" type="email" required />
            <label htmlFor="new-member-role">Role</label>
            <select id="new-member-role" name="role" defaultValue="member">
              {grantable.map((role) => (
                <option key={role}>{role}</option>
              ))}
            </select>
          </ActionForm>
        </section>
      )}

      <LeaveAndTransfer ctx={ctx} members={rows} />
    </main>
  );
}

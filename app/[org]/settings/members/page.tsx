import type { Metadata } from "next";
import type { CSSProperties } from "react";
import { can, ROLES } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listMembers } from "@/src/orgs/queries";
import { OrgNav, page } from "../../org-nav";
import { ActionForm } from "./action-form";
import { addMember, changeRole, removeMember } from "./actions";

export const metadata: Metadata = { title: "Members · Faultline" };

export default async function MembersPage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const rows = await listMembers(getDb(), ctx.org.id);
  const managesMembers = can(ctx.role, "members.write");
  const managesOwners = can(ctx.role, "owners.write");
  const grantable = ROLES.filter((role) => role !== "owner" || managesOwners);
  const orgField = <input type="hidden" name="org" value={ctx.org.slug} />;

  return (
    <main style={page}>
      <OrgNav ctx={ctx} />
      <h1>Members</h1>
      <table style={{ borderCollapse: "collapse", width: "100%" }}>
        <thead>
          <tr style={{ textAlign: "left" }}>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            {managesMembers && <th scope="col">Manage</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((member) => (
            <tr key={member.userId} style={{ borderTop: "1px solid GrayText" }}>
              <td>{member.name}</td>
              <td>{member.email}</td>
              <td>{member.role}</td>
              {managesMembers && (
                <td>
                  {(member.role !== "owner" || managesOwners) && (
                    <div style={{ display: "flex", gap: "1rem", flexWrap: "wrap" }}>
                      <ActionForm
                        action={changeRole}
                        submitLabel="Change role"
                        submitAriaLabel={`Change role of ${member.email}`}
                      >
                        {orgField}
                        <input type="hidden" name="userId" value={member.userId} />
                        <label htmlFor={`role-${member.userId}`} style={visuallyHidden}>
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
        <section>
          <h2>Add a member</h2>
          <p>
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
    </main>
  );
}

/** Read by screen readers, not shown: the row already says whose role it is. */
const visuallyHidden: CSSProperties = {
  position: "absolute",
  width: 1,
  height: 1,
  overflow: "hidden",
  clip: "rect(0 0 0 0)",
  whiteSpace: "nowrap",
};

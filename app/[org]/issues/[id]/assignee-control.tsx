import type { Assignee } from "@/src/issues/assignment";
import { IssueActionForm } from "./issue-action-form";
import { assign } from "./team-actions";

/** Who the issue is assigned to, and (for those who may triage) a way to change it. */
export function AssigneeControl({
  org,
  issueId,
  assigneeId,
  members,
  me,
  canAssign,
}: {
  org: string;
  issueId: number;
  assigneeId: string | null;
  members: Assignee[];
  me: string;
  canAssign: boolean;
}) {
  const current = members.find((m) => m.id === assigneeId);
  const label = (m: Assignee) => `${m.name || m.email}${m.id === me ? " (you)" : ""}`;
  return (
    <section aria-labelledby="assignee-heading">
      <h2 id="assignee-heading" className="mb-1.5 text-sm font-semibold">
        Assignee
      </h2>
      <p className="mb-2" data-testid="assignee">
        {current ? label(current) : assigneeId ? "a former member" : "Nobody"}
      </p>
      {canAssign && (
        <IssueActionForm org={org} issueId={issueId} action={assign} submitLabel="Assign" announce>
          <label htmlFor={`assignee-${issueId}`} className="sr-only">
            Assign to
          </label>
          <select
            id={`assignee-${issueId}`}
            name="assignee"
            defaultValue={current?.id ?? ""}
            className="max-w-48 rounded border border-line bg-canvas px-1 py-1 text-sm"
          >
            <option value="">Nobody</option>
            {members.map((m) => (
              <option key={m.id} value={m.id}>
                {label(m)}
              </option>
            ))}
          </select>
        </IssueActionForm>
      )}
    </section>
  );
}

import type { Db } from "../db/connection";
import type { IssueStatus } from "../db/schema";
import { AppError } from "../errors";

/**
 * Triage of one issue: resolve, unresolve, ignore. Every transition clears the regressed
 * mark (a person has looked at it); the store stage sets it again when a resolved issue sees
 * a new event. Scoped to the organization: another org's issue is not found.
 */
export const TRIAGE_ACTIONS = ["resolve", "unresolve", "ignore"] as const;
export type TriageAction = (typeof TRIAGE_ACTIONS)[number];

const TARGET: Record<TriageAction, IssueStatus> = {
  resolve: "resolved",
  unresolve: "unresolved",
  ignore: "ignored",
};

export async function triageIssue(
  db: Db,
  orgId: number,
  issueId: number,
  action: TriageAction,
): Promise<{ id: number; status: IssueStatus }> {
  const row = await db.kysely
    .updateTable("issues")
    .set({ status: TARGET[action], substatus: null, status_details: null })
    .where("id", "=", issueId)
    .where("project_id", "in", (eb) =>
      eb.selectFrom("projects").select("id").where("organization_id", "=", orgId),
    )
    .returning(["id", "status"])
    .executeTakeFirst();
  if (!row) throw new AppError("not_found", "issue not found");
  return row;
}

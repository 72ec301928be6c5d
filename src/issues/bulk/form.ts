import { z } from "zod";
import type { ActionState } from "../../auth/org-action";
import type { OrgContext } from "../../auth/with-org";
import type { Db } from "../../db/connection";
import { AppError } from "../../errors";
import type { IssueActor } from "../activity-hooks";
import { listScope } from "../list-page";
import { parseIssueListParams } from "../schemas";
import { deleteIssues } from "./delete";
import { mergeIssues } from "./merge";
import { type IssueSelection, MAX_SELECTED_IDS, selectIssues } from "./selection";
import { bulkUpdateIssues } from "./update";

/**
 * The list page's bulk form: which issues (the ticked rows, or every issue matching the
 * page's search), what to do, and the sentence that says what happened. Deleting, discarding
 * and merging ask first: the first press answers with the question and a button that
 * submits `confirm:<action>`.
 */
export const BULK_ACTIONS = [
  "resolve",
  "unresolve",
  "ignore",
  "assign",
  "bookmark",
  "unbookmark",
  "merge",
  "delete",
  "discard",
] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
const CONFIRMED = ["merge", "delete", "discard"] as const;

export const BulkFormSchema = z.object({
  action: z.string().transform((s, ctx) => {
    const confirmed = s.startsWith("confirm:");
    const action = (confirmed ? s.slice(8) : s) as BulkAction;
    if (!(BULK_ACTIONS as readonly string[]).includes(action)) {
      ctx.addIssue({ code: "custom", message: "Unknown action" });
    }
    return { action, confirmed };
  }),
  scope: z.enum(["selected", "query"]).default("selected"),
  query: z.string().max(2000).default(""),
  project: z.string().max(64).default(""),
  assignee: z.string().max(200).default(""),
  /** The ticked rows (a list field); ids that are not issue ids are ignored. */
  id: z
    .array(z.unknown())
    .default([])
    .transform((ids) => ids.map((v) => Number(v)).filter((n) => Number.isSafeInteger(n) && n > 0)),
});
export type BulkForm = z.output<typeof BulkFormSchema>;

export type BulkState =
  | (NonNullable<ActionState> & { confirm?: BulkAction; count?: number })
  | null;

/** Deleting and discarding need more than triage: decided from the parsed form it runs. */
export function bulkNeed(input: BulkForm): "issues.write" | "issues.delete" {
  const { action } = input.action;
  return action === "delete" || action === "discard" ? "issues.delete" : "issues.write";
}

const count = new Intl.NumberFormat("en");
const issues = (n: number) => `${count.format(n)} ${n === 1 ? "issue" : "issues"}`;

const DONE: Record<string, [string, string]> = {
  resolve: ["Resolved", "resolved"],
  unresolve: ["Reopened", "unresolved"],
  ignore: ["Ignored", "ignored"],
  bookmark: ["Bookmarked", "bookmarked"],
  unbookmark: ["Removed the bookmark of", "not bookmarked"],
};

export async function runBulkForm(
  db: Db,
  ctx: OrgContext,
  actor: IssueActor,
  input: BulkForm,
): Promise<NonNullable<BulkState>> {
  const { action, confirmed } = input.action;
  const ids = input.id;
  const orgId = ctx.org.id;
  let selection: IssueSelection;
  if (input.scope === "query") {
    if (action === "merge")
      throw new AppError("bad_request", "Merge the issues you tick, not a whole search");
    const { params } = parseIssueListParams({
      query: input.query,
      project: input.project || undefined,
    });
    const scope = await listScope(db, { orgId, userId: ctx.user.id }, params);
    selection = { scope: { orgId, ...scope }, query: params.query };
  } else {
    if (ids.length === 0)
      return { ok: false, message: "Tick the issues first, or choose every matching issue." };
    if (ids.length > MAX_SELECTED_IDS) {
      return {
        ok: false,
        message: `Tick at most ${MAX_SELECTED_IDS} issues, or choose every matching issue.`,
      };
    }
    selection = { ids };
  }

  if ((CONFIRMED as readonly string[]).includes(action) && !confirmed) {
    const n =
      "ids" in selection
        ? selection.ids.length
        : (await selectIssues(db, orgId, selection)).ids.length;
    const question =
      action === "merge"
        ? `Merge ${issues(n)} into one? Their events and later events of their fingerprints go to the issue with the most events.`
        : action === "delete"
          ? `Delete ${issues(n)} and their events? This cannot be undone.`
          : `Delete ${issues(n)} and their events, and discard their future events? New events with their fingerprints will not be stored.`;
    return { ok: false, message: question, confirm: action, count: n };
  }

  switch (action) {
    case "merge": {
      const merged = await mergeIssues(db, orgId, actor, "ids" in selection ? selection.ids : []);
      return {
        ok: true,
        message: `Merged ${issues(merged.childIds.length + 1)} into issue ${merged.parentId}.`,
      };
    }
    case "delete":
    case "discard": {
      const r = await deleteIssues(db, orgId, actor, selection, { discard: action === "discard" });
      const what = `Deleted ${issues(r.deleted)} and ${count.format(r.events)} ${r.events === 1 ? "event" : "events"}`;
      return {
        ok: true,
        message: `${what}${action === "discard" ? "; their future events will be discarded" : ""}.${more(r.truncated)}`,
      };
    }
    case "assign": {
      if (input.assignee === "")
        return { ok: false, message: "Choose whom to assign the issues to." };
      const assigneeUserId = input.assignee === "none" ? null : input.assignee;
      const r = await bulkUpdateIssues(db, orgId, actor, selection, {
        action: "assign",
        assigneeUserId,
      });
      const verb = assigneeUserId ? "Assigned" : "Unassigned";
      return {
        ok: true,
        message: `${verb} ${issues(r.changed)}${unchanged(r.matched - r.changed, "already were")}.${more(r.truncated)}`,
      };
    }
    default: {
      const r = await bulkUpdateIssues(db, orgId, actor, selection, { action });
      const [verb, state] = DONE[action] as [string, string];
      return {
        ok: true,
        message: `${verb} ${issues(r.changed)}${unchanged(r.matched - r.changed, `were already ${state}`)}.${more(r.truncated)}`,
      };
    }
  }
}

function unchanged(n: number, what: string): string {
  return n > 0 ? `; ${count.format(n)} ${what}` : "";
}

function more(truncated: boolean): string {
  return truncated ? " More issues matched than one action takes: run it again for the rest." : "";
}

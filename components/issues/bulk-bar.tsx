"use client";

import { type FormEvent, startTransition, useActionState, useEffect, useState } from "react";
import { bulkIssues } from "@/app/[org]/issues/actions";
import { Button } from "@/components/ui/button";
import type { BulkState } from "@/src/issues/bulk/form";
import { BULK_FORM } from "./bulk-form-id";

const ROW_BOXES = `input[form="${BULK_FORM}"][name="id"]`;
const count = new Intl.NumberFormat("en");

/**
 * Bulk triage above the list: the rows' checkboxes (name "id", form BULK_FORM) pick issues,
 * or "every matching issue" takes the whole search. Resolve, reopen, ignore, assign and
 * bookmark run at once; merge, delete and delete-and-discard ask first. The answer (how
 * many changed) is announced. Without JavaScript it is the same form, posted.
 */
export function BulkBar({
  org,
  query,
  project,
  total,
  members,
  canDelete,
}: {
  org: string;
  query: string;
  project?: string;
  total: number;
  members: { userId: string; email: string }[];
  canDelete: boolean;
}) {
  const [state, action, pending] = useActionState<BulkState, FormData>(bulkIssues, null);
  const [selected, setSelected] = useState(0);
  const [everything, setEverything] = useState(false);
  // A question to confirm holds for the selection it was asked about, not a changed one.
  const [version, setVersion] = useState(0);
  const [askedAt, setAskedAt] = useState(-1);

  useEffect(() => {
    const recount = () => {
      setSelected(document.querySelectorAll(`${ROW_BOXES}:checked`).length);
      setVersion((v) => v + 1);
    };
    recount();
    document.addEventListener("change", recount);
    return () => document.removeEventListener("change", recount);
  }, []);

  // Done: the list reloads; nothing stays ticked that the next action could hit unseen.
  // Only a new answer records when it was asked, not every recount.
  // biome-ignore lint/correctness/useExhaustiveDependencies: version is read, not watched
  useEffect(() => {
    if (state?.confirm) setAskedAt(version);
  }, [state]);

  useEffect(() => {
    if (!state?.ok) return;
    for (const box of document.querySelectorAll<HTMLInputElement>(ROW_BOXES)) box.checked = false;
    setSelected(0);
    setEverything(false);
  }, [state]);

  // React resets a form after its action, which would untick the rows (they belong to this
  // form) while a question to confirm still refers to them: submit without the reset.
  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const data = new FormData(e.currentTarget, (e.nativeEvent as SubmitEvent).submitter);
    startTransition(() => action(data));
  }

  const n = everything ? total : selected;
  const none = n === 0 || pending;
  return (
    <form
      id={BULK_FORM}
      action={action}
      onSubmit={onSubmit}
      aria-label="Bulk actions"
      className="mb-2 flex flex-wrap items-center gap-1.5 rounded border border-line bg-surface px-2 py-1.5 text-sm"
    >
      <input type="hidden" name="org" value={org} />
      <input type="hidden" name="query" value={query} />
      {project && <input type="hidden" name="project" value={project} />}
      <span className="min-w-28 text-muted" aria-live="polite">
        {count.format(n)} selected
      </span>
      <label className="flex items-center gap-1">
        <input
          type="checkbox"
          name="scope"
          value="query"
          checked={everything}
          onChange={(e) => {
            setEverything(e.target.checked);
            setVersion((v) => v + 1);
          }}
        />
        All {count.format(total)} matching {total === 1 ? "issue" : "issues"}
      </label>
      <Button name="action" value="resolve" disabled={none}>
        Resolve
      </Button>
      <Button name="action" value="unresolve" disabled={none}>
        Unresolve
      </Button>
      <Button name="action" value="ignore" disabled={none}>
        Ignore
      </Button>
      <Button name="action" value="bookmark" disabled={none}>
        Bookmark
      </Button>
      <Button name="action" value="unbookmark" disabled={none} aria-label="Remove bookmark">
        Unbookmark
      </Button>
      <label htmlFor="bulk-assignee" className="sr-only">
        Assignee
      </label>
      <select
        id="bulk-assignee"
        name="assignee"
        defaultValue=""
        className="rounded border border-line bg-canvas px-1 py-1 text-sm"
      >
        <option value="">Assign to…</option>
        <option value="none">Nobody (unassign)</option>
        {members.map((m) => (
          <option key={m.userId} value={m.userId}>
            {m.email}
          </option>
        ))}
      </select>
      <Button name="action" value="assign" disabled={none}>
        Assign
      </Button>
      <Button name="action" value="merge" disabled={pending || everything || selected < 2}>
        Merge
      </Button>
      {canDelete && (
        <>
          <Button name="action" value="delete" variant="danger" disabled={none}>
            Delete
          </Button>
          <Button name="action" value="discard" variant="danger" disabled={none}>
            Delete &amp; discard
          </Button>
        </>
      )}
      {state && !(state.confirm && askedAt !== version) && (
        <div
          role={state.ok ? "status" : "alert"}
          className={`flex basis-full flex-wrap items-center gap-2 text-xs ${state.ok ? "text-ok" : state.confirm ? "text-fg" : "text-danger"}`}
        >
          <span>{state.message}</span>
          {state.confirm && (
            <Button
              name="action"
              value={`confirm:${state.confirm}`}
              variant={state.confirm === "merge" ? "primary" : "danger"}
              disabled={pending}
            >
              {state.confirm === "merge"
                ? "Merge"
                : state.confirm === "delete"
                  ? "Delete"
                  : "Delete and discard"}{" "}
              {count.format(state.count ?? 0)}
            </Button>
          )}
        </div>
      )}
    </form>
  );
}

/** The header's box: ticks or clears every row of the page. */
export function SelectPage() {
  const [checked, setChecked] = useState(false);
  return (
    <input
      type="checkbox"
      aria-label="Select every issue on this page"
      checked={checked}
      onChange={(e) => {
        setChecked(e.target.checked);
        for (const box of document.querySelectorAll<HTMLInputElement>(ROW_BOXES))
          box.checked = e.target.checked;
        document.dispatchEvent(new Event("change"));
      }}
    />
  );
}

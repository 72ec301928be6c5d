"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { IssueActionForm } from "./issue-action-form";
import { deleteComment, editComment } from "./team-actions";

/** Edit (the author) and delete (the author or an admin) under a comment. */
export function CommentActions({
  org,
  issueId,
  commentId,
  text,
  canEdit,
}: {
  org: string;
  issueId: number;
  commentId: number;
  text: string;
  canEdit: boolean;
}) {
  const [editing, setEditing] = useState(false);
  if (editing) {
    return (
      <div className="mt-2">
        <IssueActionForm
          org={org}
          issueId={issueId}
          action={async (prev, data) => {
            const state = await editComment(prev, data);
            if (state?.ok) setEditing(false);
            return state;
          }}
          submitLabel="Save"
          className="flex flex-col items-start gap-2"
        >
          <input type="hidden" name="commentId" value={commentId} />
          <label htmlFor={`edit-${commentId}`} className="sr-only">
            Edit comment
          </label>
          <textarea
            id={`edit-${commentId}`}
            name="text"
            defaultValue={text}
            required
            rows={3}
            maxLength={10_000}
            className="w-full rounded border border-line bg-canvas p-2 text-sm"
          />
        </IssueActionForm>
        <Button type="button" variant="ghost" onClick={() => setEditing(false)} className="mt-1">
          Cancel
        </Button>
      </div>
    );
  }
  return (
    <div className="mt-1 flex items-start gap-2">
      {canEdit && (
        <Button type="button" variant="ghost" onClick={() => setEditing(true)}>
          Edit
        </Button>
      )}
      <IssueActionForm
        org={org}
        issueId={issueId}
        action={deleteComment}
        submitLabel="Delete"
        submitAriaLabel="Delete comment"
        variant="ghost"
      >
        <input type="hidden" name="commentId" value={commentId} />
      </IssueActionForm>
    </div>
  );
}

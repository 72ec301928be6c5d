"use client";

import { useActionState } from "react";
import { Button } from "@/components/ui/button";
import type { ActionState } from "@/src/auth/org-action";

type Action = (state: ActionState, formData: FormData) => Promise<ActionState>;

/** One triage button: a form posting to its server action, with the outcome announced. */
export function TriageForm({
  action,
  label,
  org,
  issueId,
  variant = "secondary",
}: {
  action: Action;
  label: string;
  org: string;
  issueId: number;
  variant?: "primary" | "secondary";
}) {
  const [state, formAction, pending] = useActionState(action, null);
  return (
    <form action={formAction} className="flex items-center gap-2">
      <input type="hidden" name="org" value={org} />
      <input type="hidden" name="issueId" value={issueId} />
      <Button variant={variant} disabled={pending}>
        {label}
      </Button>
      {state && !state.ok && (
        <span role="alert" className="text-danger text-xs">
          {state.message}
        </span>
      )}
    </form>
  );
}

"use client";

import { type ReactNode, useActionState, useEffect, useRef } from "react";
import { Button } from "@/components/ui/button";
import type { ActionState } from "@/src/auth/org-action";

type Action = (state: ActionState, formData: FormData) => Promise<ActionState>;

/**
 * A form of the issue page posting to a server action, with the outcome announced (errors
 * always, successes when `announce`), and cleared after a success when `resetOnSuccess`.
 */
export function IssueActionForm({
  action,
  org,
  issueId,
  submitLabel,
  submitAriaLabel,
  variant = "secondary",
  resetOnSuccess = false,
  announce = false,
  className = "flex flex-wrap items-center gap-2",
  children,
}: {
  action: Action;
  org: string;
  issueId: number;
  submitLabel: string;
  submitAriaLabel?: string;
  variant?: "primary" | "secondary" | "danger" | "ghost";
  resetOnSuccess?: boolean;
  announce?: boolean;
  className?: string;
  children?: ReactNode;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state?.ok && resetOnSuccess) form.current?.reset();
  }, [state, resetOnSuccess]);
  return (
    <form ref={form} action={formAction} className={className}>
      <input type="hidden" name="org" value={org} />
      <input type="hidden" name="issueId" value={issueId} />
      {children}
      <Button variant={variant} disabled={pending} aria-label={submitAriaLabel}>
        {submitLabel}
      </Button>
      {state && !state.ok && (
        <span role="alert" className="basis-full text-danger text-xs">
          {state.message}
        </span>
      )}
      {state?.ok && announce && (
        <span role="status" className="basis-full text-ok text-xs">
          {state.message}
        </span>
      )}
    </form>
  );
}

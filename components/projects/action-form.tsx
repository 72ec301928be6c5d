"use client";

import { type ReactNode, useActionState } from "react";
import type { ActionState } from "@/src/auth/org-action";
import { Button } from "../ui/button";

export type FormAction = (state: ActionState, formData: FormData) => Promise<ActionState>;

/**
 * A small form bound to a server action: hidden fields say what it acts on, the answer is
 * shown beside the button (an error as an alert, so screen readers announce it).
 */
export function ActionForm({
  action,
  fields,
  submitLabel,
  submitAriaLabel,
  variant = "secondary",
  children,
  className = "",
}: {
  action: FormAction;
  fields: Record<string, string>;
  submitLabel: string;
  submitAriaLabel?: string;
  variant?: "primary" | "secondary" | "danger";
  children?: ReactNode;
  className?: string;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  return (
    <form action={formAction} className={`flex flex-wrap items-end gap-2 ${className}`}>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {children}
      <Button variant={variant} disabled={pending} aria-label={submitAriaLabel}>
        {submitLabel}
      </Button>
      {state && (
        <p
          role={state.ok ? "status" : "alert"}
          className={`basis-full text-xs ${state.ok ? "text-ok" : "text-danger"}`}
        >
          {state.message}
        </p>
      )}
    </form>
  );
}

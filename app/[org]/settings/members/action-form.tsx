"use client";

import { type CSSProperties, type ReactNode, useActionState } from "react";
import { Button } from "@/components/ui/button";
import type { ActionState } from "@/src/auth/org-action";

/** A form bound to a server action that answers with a message (and maybe a one-time secret). */
export function ActionForm({
  action,
  submitLabel,
  submitAriaLabel,
  children,
  style,
}: {
  action: (state: ActionState, formData: FormData) => Promise<ActionState>;
  submitLabel: string;
  submitAriaLabel?: string;
  children: ReactNode;
  style?: CSSProperties;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  return (
    <form
      action={formAction}
      className="flex flex-wrap items-center gap-2 [&_input]:rounded [&_input]:border [&_input]:border-line [&_input]:bg-canvas [&_input]:px-2 [&_input]:py-1 [&_select]:rounded [&_select]:border [&_select]:border-line [&_select]:bg-canvas [&_select]:px-1 [&_select]:py-1"
      style={style}
    >
      {children}
      <Button disabled={pending} aria-label={submitAriaLabel}>
        {submitLabel}
      </Button>
      {state && (
        <p
          role={state.ok ? "status" : "alert"}
          className={`m-0 basis-full ${state.ok ? "text-ok" : "text-danger"}`}
        >
          {state.message} {state.secret && <code>{state.secret}</code>}
        </p>
      )}
    </form>
  );
}

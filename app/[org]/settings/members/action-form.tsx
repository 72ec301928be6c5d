"use client";

import { type CSSProperties, type ReactNode, useActionState } from "react";
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
      style={{ display: "flex", gap: "0.5rem", flexWrap: "wrap", ...style }}
    >
      {children}
      <button type="submit" disabled={pending} aria-label={submitAriaLabel}>
        {submitLabel}
      </button>
      {state && (
        <p role={state.ok ? "status" : "alert"} style={{ flexBasis: "100%", margin: 0 }}>
          {state.message} {state.secret && <code>{state.secret}</code>}
        </p>
      )}
    </form>
  );
}

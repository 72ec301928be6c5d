"use client";

import { type ReactNode, useActionState } from "react";
import type { ActionState } from "@/src/auth/org-action";
import { Button } from "../ui/button";
import { CopyButton } from "../ui/copy-button";

type FormAction = (state: ActionState, formData: FormData) => Promise<ActionState>;

const FIELDS =
  "[&_input[type=text]]:rounded [&_input[type=text]]:border [&_input[type=text]]:border-line [&_input[type=text]]:bg-canvas [&_input[type=text]]:px-2 [&_input[type=text]]:py-1 [&_select]:rounded [&_select]:border [&_select]:border-line [&_select]:bg-canvas [&_select]:px-1 [&_select]:py-1";

/**
 * Creates a token and shows it once, with a copy button: the server keeps only its hash, so
 * this answer is the only place it ever appears.
 */
export function CreateTokenForm({
  action,
  submitLabel,
  children,
}: {
  action: FormAction;
  submitLabel: string;
  children: ReactNode;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  return (
    <form action={formAction} className={`grid max-w-2xl gap-3 ${FIELDS}`}>
      {children}
      <div>
        <Button variant="primary" disabled={pending}>
          {submitLabel}
        </Button>
      </div>
      {state && !state.ok && (
        <p role="alert" className="m-0 text-danger">
          {state.message}
        </p>
      )}
      {state?.ok && state.secret && (
        <div role="status" className="grid gap-1 rounded border border-line bg-surface p-3">
          <p className="m-0 text-ok">{state.message}</p>
          <div className="flex items-start gap-2">
            <code data-new-token="" className="break-all select-all">
              {state.secret}
            </code>
            <span className="shrink-0">
              <CopyButton value={state.secret} label="Copy token" />
            </span>
          </div>
        </div>
      )}
    </form>
  );
}

/** One button that revokes one token; the answer appears beside it. */
export function RevokeTokenForm({
  action,
  fields,
  tokenName,
}: {
  action: FormAction;
  fields: Record<string, string>;
  tokenName: string;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  return (
    <form action={formAction} className="flex items-center gap-2">
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <Button variant="danger" disabled={pending} aria-label={`Revoke token ${tokenName}`}>
        Revoke
      </Button>
      {state && (
        <span role={state.ok ? "status" : "alert"} className={state.ok ? "text-ok" : "text-danger"}>
          {state.message}
        </span>
      )}
    </form>
  );
}

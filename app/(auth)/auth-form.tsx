import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";

/**
 * The frame of the setup and sign-in pages: a heading and one form posting to a server
 * action. Plain HTML, so both work before (and without) JavaScript.
 */
export function AuthForm({
  title,
  intro,
  action,
  submitLabel,
  children,
  footer,
}: {
  title: string;
  intro?: ReactNode;
  action: (formData: FormData) => Promise<void>;
  submitLabel: string;
  children: ReactNode;
  /** Below the form, inside the card (another way in). */
  footer?: ReactNode;
}) {
  return (
    <main className="mx-auto mt-[10vh] max-w-sm px-6">
      <p className="mb-6 text-xs font-semibold tracking-widest text-muted uppercase">Faultline</p>
      <div className="rounded-lg border border-line bg-surface p-6">
        <h1 className="mb-3 text-xl font-semibold">{title}</h1>
        {intro && <div className="mb-4 text-muted">{intro}</div>}
        <form action={action} className="grid gap-3">
          {children}
          <Button variant="primary" className="justify-self-start px-4">
            {submitLabel}
          </Button>
        </form>
        {footer}
      </div>
    </main>
  );
}

export function Field({
  label,
  name,
  type = "text",
  autoComplete,
  hint,
  defaultValue,
  optional = false,
}: {
  label: string;
  name: string;
  type?: "text" | "email" | "password";
  autoComplete?: string;
  hint?: string;
  defaultValue?: string;
  /** Not required (a slug made from the name when left empty). */
  optional?: boolean;
}) {
  const hintId = hint ? `${name}-hint` : undefined;
  return (
    <p className="m-0 grid gap-1">
      <label htmlFor={name} className="font-medium">
        {label}
      </label>
      <input
        id={name}
        name={name}
        type={type}
        required={!optional}
        autoComplete={autoComplete}
        defaultValue={defaultValue}
        aria-describedby={hintId}
        className="rounded border border-line bg-canvas px-2 py-1.5"
      />
      {hint && (
        <small id={hintId} className="text-xs text-muted">
          {hint}
        </small>
      )}
    </p>
  );
}

export function FormError({ children }: { children: ReactNode }) {
  return (
    <p role="alert" className="m-0 rounded border border-danger/40 px-2 py-1 text-danger">
      {children}
    </p>
  );
}

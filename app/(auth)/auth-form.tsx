import type { CSSProperties, ReactNode } from "react";

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
}: {
  title: string;
  intro?: ReactNode;
  action: (formData: FormData) => Promise<void>;
  submitLabel: string;
  children: ReactNode;
}) {
  return (
    <main style={frame}>
      <h1 style={{ fontSize: "1.375rem" }}>{title}</h1>
      {intro}
      <form action={action} style={{ display: "grid", gap: "0.75rem" }}>
        {children}
        <button type="submit" style={{ justifySelf: "start", padding: "0.4rem 1rem" }}>
          {submitLabel}
        </button>
      </form>
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
}: {
  label: string;
  name: string;
  type?: "text" | "email" | "password";
  autoComplete?: string;
  hint?: string;
  defaultValue?: string;
}) {
  const hintId = hint ? `${name}-hint` : undefined;
  return (
    <p style={{ display: "grid", gap: "0.25rem", margin: 0 }}>
      <label htmlFor={name}>{label}</label>
      <input
        id={name}
        name={name}
        type={type}
        required
        autoComplete={autoComplete}
        defaultValue={defaultValue}
        aria-describedby={hintId}
        style={{ padding: "0.35rem" }}
      />
      {hint && (
        <small id={hintId} style={{ color: "GrayText" }}>
          {hint}
        </small>
      )}
    </p>
  );
}

export function FormError({ children }: { children: ReactNode }) {
  return (
    <p role="alert" style={{ color: "#b00020", margin: 0 }}>
      {children}
    </p>
  );
}

const frame: CSSProperties = {
  fontFamily: "system-ui, sans-serif",
  lineHeight: 1.5,
  maxWidth: "24rem",
  margin: "10vh auto",
  padding: "0 1.5rem",
};

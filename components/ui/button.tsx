import type { ButtonHTMLAttributes } from "react";

type Variant = "primary" | "secondary" | "danger" | "ghost";

const VARIANTS: Record<Variant, string> = {
  primary: "bg-accent text-accent-fg border-accent hover:opacity-90",
  secondary: "bg-surface text-fg border-line hover:bg-raised",
  danger: "bg-surface text-danger border-line hover:bg-raised",
  ghost: "bg-transparent text-fg border-transparent hover:bg-raised",
};

/** The one button. Forms post through server actions, so type defaults to submit. */
export function Button({
  variant = "secondary",
  className = "",
  type = "submit",
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant }) {
  return (
    <button
      type={type}
      className={`inline-flex items-center gap-1 rounded border px-2.5 py-1 text-sm font-medium disabled:opacity-50 ${VARIANTS[variant]} ${className}`}
      {...props}
    />
  );
}

import type { CSSProperties, ReactNode } from "react";

/**
 * The plain frame of Faultline's error and access pages: a status line, a heading, a short
 * explanation and a way on. System colours, so it reads in light and dark mode without CSS.
 */
export function StatusPage({
  status,
  title,
  children,
}: {
  status?: string;
  title: string;
  children?: ReactNode;
}) {
  return (
    <main style={frame}>
      {status && <p style={statusLine}>{status}</p>}
      <h1 style={heading}>{title}</h1>
      {children}
    </main>
  );
}

const frame: CSSProperties = {
  fontFamily: "system-ui, sans-serif",
  lineHeight: 1.5,
  maxWidth: "40rem",
  margin: "10vh auto",
  padding: "0 1.5rem",
  color: "CanvasText",
};
const statusLine: CSSProperties = {
  margin: 0,
  color: "GrayText",
  fontVariantNumeric: "tabular-nums",
};
const heading: CSSProperties = {
  fontSize: "1.375rem",
  fontWeight: 600,
  margin: "0.25rem 0 0.75rem",
};

export const actionRow: CSSProperties = { display: "flex", gap: "1rem", alignItems: "center" };
export const linkStyle: CSSProperties = { color: "LinkText" };

/**
 * Shared look of text inputs and selects in the project forms. In a module of its own: a value
 * exported from a "use client" module reaches server components as a reference, not a string.
 */
export const inputClass =
  "rounded border border-line bg-canvas px-2 py-1 text-sm text-fg placeholder:text-muted";

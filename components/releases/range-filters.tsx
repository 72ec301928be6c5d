/** What the page ignored in its URL, named, so a bad link is not silently different. */
export function InvalidParams({ invalid }: { invalid: string[] }) {
  if (invalid.length === 0) return null;
  return (
    <p role="status" className="mb-2 text-warning">
      Ignored {invalid.length === 1 ? "a parameter" : "parameters"} that could not be read (
      {invalid.join(", ")}); showing the default instead.
    </p>
  );
}

export function percent(rate: number | null, digits = 2): string {
  return rate === null ? "—" : `${(rate * 100).toFixed(digits)}%`;
}

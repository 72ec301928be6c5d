import { TruncatedText } from "@/components/ui/truncated-text";

/** Free-form event data as text: strings as they are, anything else as indented JSON. */
export function valueToText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** What data scrubbing leaves in place of a secret (src/ingest/process/scrub/rules.ts). */
const FILTERED = "[Filtered]";

export function ValueText({ value, max = 300 }: { value: unknown; max?: number }) {
  if (value === FILTERED)
    return (
      <mark
        title="Removed by Faultline's data scrubbing before it was stored (see Changed on ingest)"
        className="rounded bg-raised px-1 font-mono text-xs text-muted"
      >
        {FILTERED}
      </mark>
    );
  return (
    <span className="font-mono text-xs">
      <TruncatedText text={valueToText(value)} max={max} />
    </span>
  );
}

/** Rows of name → value; names and values are event data, shown as text. */
export function KeyValueTable({ rows, label }: { rows: [string, unknown][]; label: string }) {
  const shown = rows.filter(([, v]) => v !== undefined && v !== null && v !== "");
  if (shown.length === 0) return null;
  return (
    <table aria-label={label} className="w-full table-fixed border-collapse text-xs">
      <tbody>
        {shown.map(([key, value], i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: keys may repeat (headers)
          <tr key={i} className="border-t border-line align-top first:border-t-0">
            <th scope="row" className="w-40 py-1 pr-3 text-left font-medium break-all text-muted">
              {key}
            </th>
            <td className="py-1 break-all">
              <ValueText value={value} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

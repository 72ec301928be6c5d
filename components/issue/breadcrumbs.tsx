import { Badge, levelTone } from "@/components/ui/badge";
import { TruncatedText } from "@/components/ui/truncated-text";
import type { Breadcrumb } from "@/src/events/types";
import { valueToText } from "./value-text";

function clock(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(11, 23)} UTC`;
}

/** What happened before the event, oldest first so the newest sits next to the error. */
export function Breadcrumbs({ crumbs }: { crumbs: Breadcrumb[] }) {
  if (crumbs.length === 0) return <p className="text-muted">No breadcrumbs were sent.</p>;
  return (
    <table aria-label="Breadcrumbs" className="w-full table-fixed border-collapse text-xs">
      <thead className="text-left text-muted">
        <tr>
          <th scope="col" className="w-28 py-1 font-medium">
            Time
          </th>
          <th scope="col" className="w-20 py-1 font-medium">
            Level
          </th>
          <th scope="col" className="w-32 py-1 font-medium">
            Category
          </th>
          <th scope="col" className="py-1 font-medium">
            Message and data
          </th>
        </tr>
      </thead>
      <tbody>
        {crumbs.map((crumb, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: breadcrumbs are positional
          <tr key={i} className="border-t border-line align-top">
            <td className="py-1 pr-2 font-mono tabular-nums text-muted">
              {crumb.timestamp !== undefined ? (
                <time dateTime={new Date(crumb.timestamp * 1000).toISOString()}>
                  {clock(crumb.timestamp)}
                </time>
              ) : (
                "—"
              )}
            </td>
            <td className="py-1 pr-2">
              <Badge tone={levelTone(crumb.level ?? "info")}>{crumb.level ?? "info"}</Badge>
            </td>
            <td className="py-1 pr-2 break-all">
              <TruncatedText text={crumb.category ?? crumb.type ?? "default"} max={60} />
            </td>
            <td className="py-1 break-words">
              {crumb.message && <TruncatedText text={crumb.message} max={300} />}
              {crumb.data !== undefined && crumb.data !== null && (
                <div className="mt-0.5 font-mono text-muted">
                  <TruncatedText text={valueToText(crumb.data)} max={200} />
                </div>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

import Link from "next/link";
import { Badge, type Tone } from "@/components/ui/badge";
import type { SerializedLog } from "@/src/logs/api";

export function severityTone(severity: string): Tone {
  if (severity === "error" || severity === "fatal") return "danger";
  if (severity === "warn") return "warning";
  if (severity === "info") return "info";
  return "neutral";
}

/** One log line; opening it shows its attributes. Bodies and attributes are text, never markup. */
export function LogRow({ log, orgSlug }: { log: SerializedLog; orgSlug: string }) {
  const attributes = Object.entries(log.attributes);
  return (
    <li className="border-b border-line" data-log-row={log.id}>
      <details>
        <summary className="flex cursor-pointer items-baseline gap-3 py-1 font-mono text-xs">
          <time dateTime={log.timestamp} className="whitespace-nowrap text-muted">
            {log.timestamp.replace("T", " ").slice(0, 23)}
          </time>
          <Badge tone={severityTone(log.severity)}>{log.severity}</Badge>
          <span className="text-muted">{log.project}</span>
          <span className="break-all text-fg" data-log-body>
            {log.body}
          </span>
        </summary>
        <div className="mb-2 ml-4 grid gap-1 text-xs">
          {log.trace_id && (
            <p>
              Trace{" "}
              <Link href={`/${orgSlug}/traces/${log.trace_id}`} className="font-mono">
                {log.trace_id}
              </Link>
              {log.span_id && <span className="ml-2 text-muted">span {log.span_id}</span>}
            </p>
          )}
          <dl
            className="grid grid-cols-[max-content_1fr] gap-x-4 font-mono"
            aria-label="Attributes"
          >
            {log.release && (
              <>
                <dt className="text-muted">release</dt>
                <dd className="break-all">{log.release}</dd>
              </>
            )}
            {log.environment && (
              <>
                <dt className="text-muted">environment</dt>
                <dd className="break-all">{log.environment}</dd>
              </>
            )}
            {attributes.map(([key, value]) => (
              <div key={key} className="contents">
                <dt className="break-all text-muted">{key}</dt>
                <dd className="break-all">
                  {typeof value === "string" ? value : JSON.stringify(value)}
                </dd>
              </div>
            ))}
          </dl>
        </div>
      </details>
    </li>
  );
}

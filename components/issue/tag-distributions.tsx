import { TruncatedText } from "@/components/ui/truncated-text";
import type { TagDistribution } from "@/src/issues/detail-queries";

function percent(count: number, total: number): string {
  const p = total === 0 ? 0 : (count / total) * 100;
  return p >= 10 || p === 0 ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
}

/** The top values of each tag key with their share of the events that carried the key. */
export function TagDistributions({ tags }: { tags: TagDistribution[] }) {
  if (tags.length === 0) return <p className="text-muted">No tags were sent with this issue.</p>;
  return (
    <div className="flex flex-col gap-3">
      {tags.map((tag) => (
        <section key={tag.key} aria-label={`Tag ${tag.key}`}>
          <h3 className="mb-1 flex justify-between text-xs font-semibold">
            <span className="break-all">{tag.key}</span>
            <span className="font-normal text-muted">
              {tag.distinctValues} {tag.distinctValues === 1 ? "value" : "values"}
            </span>
          </h3>
          <ul className="flex flex-col gap-0.5">
            {tag.top.map((v) => {
              const share = percent(v.count, tag.total);
              return (
                <li key={v.value} className="relative rounded bg-surface px-1.5 py-0.5 text-xs">
                  <span
                    aria-hidden="true"
                    className="absolute inset-y-0 left-0 rounded bg-accent/15"
                    style={{ width: share }}
                  />
                  <span className="relative flex justify-between gap-2">
                    <span className="min-w-0 break-all">
                      <TruncatedText text={v.value} max={80} />
                    </span>
                    <span className="shrink-0 tabular-nums text-muted" title={`${v.count} events`}>
                      {share}
                    </span>
                  </span>
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </div>
  );
}

import type { FrequencyBucket, FrequencyRange } from "@/src/issues/detail-queries";

const WIDTH = 300;
const HEIGHT = 60;

function bucketLabel(start: number, range: FrequencyRange): string {
  const iso = new Date(start).toISOString();
  return range === "24h" ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso.slice(0, 10);
}

/**
 * Events per bucket as server-rendered SVG bars: no chart library and no client script. Each
 * bar says its count and time to assistive technology and on hover.
 */
export function FrequencyChart({
  buckets,
  range,
}: {
  buckets: FrequencyBucket[];
  range: FrequencyRange;
}) {
  const max = Math.max(1, ...buckets.map((b) => b.count));
  const total = buckets.reduce((sum, b) => sum + b.count, 0);
  const slot = WIDTH / Math.max(1, buckets.length);
  const what = range === "24h" ? "per hour, last 24 hours" : "per day, last 30 days";
  return (
    <figure className="m-0">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        className="h-20 w-full"
        preserveAspectRatio="none"
        aria-label={`Events ${what}: ${total} in total`}
      >
        <title>{`Events ${what}: ${total} in total`}</title>
        {buckets.map((b, i) => {
          const h = b.count === 0 ? 1 : Math.max(3, (b.count / max) * HEIGHT);
          const label = `${b.count} ${b.count === 1 ? "event" : "events"} · ${bucketLabel(b.start, range)}`;
          // An SVG <title> names its element for assistive technology and shows on hover.
          return (
            <g key={b.start} data-count={b.count}>
              <title>{label}</title>
              <rect
                x={i * slot + slot * 0.1}
                y={HEIGHT - h}
                width={slot * 0.8}
                height={h}
                className={b.count === 0 ? "fill-line" : "fill-accent"}
              />
            </g>
          );
        })}
      </svg>
      <figcaption className="mt-1 flex justify-between text-xs text-muted">
        <span>{bucketLabel(buckets[0]?.start ?? 0, range)}</span>
        <span>
          {total.toLocaleString("en-US")} {total === 1 ? "event" : "events"}
        </span>
      </figcaption>
    </figure>
  );
}

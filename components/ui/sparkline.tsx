/**
 * A tiny bar chart as inline SVG, rendered on the server: no chart library, no client
 * JavaScript. Empty buckets show as a faint baseline so a quiet period reads as quiet, not
 * as missing data.
 */
export function Sparkline({
  values,
  label,
  width = 96,
  height = 20,
}: {
  values: number[];
  /** What the chart says, for screen readers and on hover. */
  label: string;
  width?: number;
  height?: number;
}) {
  const max = Math.max(1, ...values);
  const step = width / Math.max(1, values.length);
  const bar = Math.max(1, step - 1);
  return (
    <svg
      role="img"
      aria-label={label}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      className="block text-accent"
    >
      <title>{label}</title>
      {values.map((v, i) => {
        const h = v === 0 ? 1 : Math.max(2, Math.round((v / max) * height));
        return (
          <rect
            // biome-ignore lint/suspicious/noArrayIndexKey: buckets are positional
            key={i}
            x={(i * step).toFixed(1)}
            y={height - h}
            width={bar.toFixed(1)}
            height={h}
            fill="currentColor"
            opacity={v === 0 ? 0.25 : 0.85}
          />
        );
      })}
    </svg>
  );
}

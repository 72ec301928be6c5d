/**
 * A tiny bar chart as inline SVG, rendered on the server: no chart library, no client
 * JavaScript. All bars are one path (a list shows 50 of these; an element per bar made the
 * page several times larger), over a faint baseline so a quiet period reads as quiet, not as
 * missing data.
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
  // Numbers without a trailing ".0": the path is repeated in the HTML and the RSC payload.
  const n = (v: number) => String(Math.round(v * 10) / 10);
  let bars = "";
  values.forEach((v, i) => {
    if (v === 0) return;
    const h = Math.max(2, Math.round((v / max) * height));
    bars += `M${n(i * step)} ${height - h}h${n(bar)}v${h}h-${n(bar)}z`;
  });
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
      <path d={`M0 ${height - 0.5}h${width}`} stroke="currentColor" opacity={0.25} />
      {bars && <path d={bars} fill="currentColor" opacity={0.85} />}
    </svg>
  );
}

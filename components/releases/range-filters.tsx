import { PERIOD_KEYS, PERIODS, type Period } from "@/src/releases/page-params";

/**
 * Project, environment and time range as a plain GET form: the URL holds the state and the
 * form works without JavaScript. `extra` keeps a page's other parameters (the stats page's
 * category) across a change.
 */
export function RangeFilters({
  action,
  projects,
  project,
  environment,
  period,
  extra = {},
  showEnvironment = true,
}: {
  action: string;
  projects: { slug: string }[];
  project?: string;
  environment?: string;
  period: Period;
  extra?: Record<string, string>;
  showEnvironment?: boolean;
}) {
  return (
    <form
      method="get"
      action={action}
      aria-label="Filters"
      className="mb-3 flex flex-wrap items-end gap-3"
    >
      {Object.entries(extra).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <label className="flex flex-col text-xs text-muted">
        Project
        <select
          name="project"
          defaultValue={project ?? ""}
          className="rounded border border-line bg-canvas px-2 py-1 text-sm text-fg"
        >
          <option value="">All projects</option>
          {projects.map((p) => (
            <option key={p.slug} value={p.slug}>
              {p.slug}
            </option>
          ))}
        </select>
      </label>
      {showEnvironment && (
        <label className="flex flex-col text-xs text-muted">
          Environment
          <input
            name="environment"
            defaultValue={environment ?? ""}
            placeholder="all"
            maxLength={64}
            className="w-36 rounded border border-line bg-canvas px-2 py-1 text-sm text-fg"
          />
        </label>
      )}
      <label className="flex flex-col text-xs text-muted">
        Time range
        <select
          name="period"
          defaultValue={period}
          className="rounded border border-line bg-canvas px-2 py-1 text-sm text-fg"
        >
          {PERIOD_KEYS.map((p) => (
            <option key={p} value={p}>
              {PERIODS[p].label}
            </option>
          ))}
        </select>
      </label>
      <button
        type="submit"
        className="rounded border border-line px-3 py-1 text-sm hover:bg-raised"
      >
        Apply
      </button>
    </form>
  );
}

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

import { type PageFilters, RANGE_LABELS, RANGES } from "@/src/ui/page-filters";

/**
 * The project / environment / time-range selector at the top of a section. A plain GET form,
 * so it works before (and without) JavaScript; `keep` are the page's own parameters (sort,
 * search, transaction) that a new selection must not lose.
 */
export function PageFilterBar({
  action,
  filters,
  projects,
  environments = [],
  keep = {},
  invalid = [],
  children,
}: {
  /** The page's path (the form submits to itself). */
  action: string;
  filters: PageFilters;
  projects: { id: number; slug: string }[];
  environments?: string[];
  keep?: Record<string, string | undefined>;
  invalid?: readonly string[];
  /** More fields of the page (a search box) submitted with the selection. */
  children?: React.ReactNode;
}) {
  const custom = filters.range === "custom";
  const local = (ms: number) => new Date(ms).toISOString().slice(0, 16);
  return (
    <div className="mb-3">
      <form
        action={action}
        method="get"
        aria-label="Page filters"
        className="flex flex-wrap items-end gap-2 rounded border border-line bg-surface p-2"
      >
        {Object.entries(keep).map(([k, v]) =>
          v ? <input key={k} type="hidden" name={k} value={v} /> : null,
        )}
        <label className="flex flex-col text-xs text-muted">
          Project
          <select
            name="project"
            defaultValue={filters.projectSlugs[0] ?? ""}
            className="rounded border border-line bg-canvas px-1 py-0.5 text-sm text-fg"
          >
            <option value="">All projects</option>
            {projects.map((p) => (
              <option key={p.id} value={p.slug}>
                {p.slug}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col text-xs text-muted">
          Environment
          <input
            name="environment"
            list="page-filter-environments"
            defaultValue={filters.environment ?? ""}
            placeholder="All environments"
            className="w-40 rounded border border-line bg-canvas px-1 py-0.5 text-sm text-fg"
          />
          <datalist id="page-filter-environments">
            {environments.map((e) => (
              <option key={e} value={e} />
            ))}
          </datalist>
        </label>
        <label className="flex flex-col text-xs text-muted">
          Time range
          <select
            name="range"
            defaultValue={filters.range}
            className="rounded border border-line bg-canvas px-1 py-0.5 text-sm text-fg"
          >
            {RANGES.map((r) => (
              <option key={r} value={r}>
                {RANGE_LABELS[r]}
              </option>
            ))}
            <option value="custom">Custom (from – to)</option>
          </select>
        </label>
        <fieldset className="flex items-end gap-1 text-xs text-muted">
          <legend className="sr-only">Custom range (UTC)</legend>
          <label className="flex flex-col">
            From (UTC)
            <input
              type="datetime-local"
              name="start"
              defaultValue={custom ? local(filters.fromMs) : ""}
              className="rounded border border-line bg-canvas px-1 py-0.5 text-sm text-fg"
            />
          </label>
          <label className="flex flex-col">
            To (UTC)
            <input
              type="datetime-local"
              name="end"
              defaultValue={custom ? local(filters.toMs) : ""}
              className="rounded border border-line bg-canvas px-1 py-0.5 text-sm text-fg"
            />
          </label>
        </fieldset>
        {children}
        <button
          type="submit"
          className="rounded border border-line bg-canvas px-3 py-0.5 text-sm hover:bg-raised"
        >
          Apply
        </button>
      </form>
      {invalid.length > 0 && (
        <p role="status" className="mt-1 text-xs text-warning">
          Ignored {invalid.length === 1 ? "a parameter" : "parameters"} that could not be read (
          {invalid.join(", ")}); showing the default instead.
        </p>
      )}
      {custom && (
        <p className="mt-1 text-xs text-muted">
          {new Date(filters.fromMs).toISOString().replace("T", " ").slice(0, 19)} –{" "}
          {new Date(filters.toMs).toISOString().replace("T", " ").slice(0, 19)} UTC
        </p>
      )}
    </div>
  );
}

import Form from "next/form";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import type { ProjectOption } from "@/src/issues/list-options";
import {
  ISSUE_LEVELS,
  ISSUE_SORTS,
  ISSUE_STATUSES,
  type IssueListParams,
  SPARKLINE_PERIODS,
} from "@/src/issues/schemas";

const SORT_LABELS: Record<(typeof ISSUE_SORTS)[number], string> = {
  last_seen: "Last seen",
  first_seen: "First seen",
  events: "Events",
  users: "Users",
};

const control =
  "rounded border border-line bg-canvas px-2 py-1 text-sm text-fg placeholder:text-muted";

function Labelled({
  label,
  htmlFor,
  children,
}: {
  label: string;
  htmlFor: string;
  children: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-0.5">
      <label htmlFor={htmlFor} className="text-xs text-muted">
        {label}
      </label>
      {children}
    </div>
  );
}

/** A free-text filter with the values seen recently offered as suggestions (a datalist). */
function SuggestInput({
  label,
  name,
  value,
  suggestions,
  width,
}: {
  label: string;
  name: string;
  value: string | undefined;
  suggestions: string[];
  width: string;
}) {
  const id = `f-${name}`;
  return (
    <>
      <Labelled label={label} htmlFor={id}>
        <input
          id={id}
          name={name}
          list={`${id}s`}
          defaultValue={value ?? ""}
          placeholder="Any"
          maxLength={200}
          className={`${control} ${width}`}
        />
      </Labelled>
      <datalist id={`${id}s`}>
        {suggestions.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
    </>
  );
}

/**
 * The list's filters as a GET form: without JavaScript it loads the list's URL; with it,
 * next/form turns the submit into a client-side navigation. Paging starts over.
 */
export function IssueFilters({
  orgSlug,
  params,
  projects,
  environments,
  releases,
}: {
  orgSlug: string;
  params: IssueListParams;
  projects: ProjectOption[];
  environments: string[];
  releases: string[];
}) {
  return (
    <Form
      action={`/${orgSlug}/issues`}
      role="search"
      aria-label="Filter issues"
      className="mb-3 flex flex-wrap items-end gap-2"
    >
      <Labelled label="Search titles" htmlFor="f-query">
        <input
          id="f-query"
          name="query"
          type="search"
          defaultValue={params.query ?? ""}
          placeholder="TypeError, checkout…"
          maxLength={200}
          className={`${control} w-56`}
        />
      </Labelled>
      <Labelled label="Project" htmlFor="f-project">
        <select
          id="f-project"
          name="project"
          defaultValue={params.project ?? ""}
          className={control}
        >
          <option value="">All projects</option>
          {projects.map((p) => (
            <option key={p.id} value={p.slug}>
              {p.slug}
            </option>
          ))}
        </select>
      </Labelled>
      <Labelled label="Status" htmlFor="f-status">
        <select id="f-status" name="status" defaultValue={params.status} className={control}>
          {ISSUE_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s === "all" ? "Any status" : s[0]?.toUpperCase() + s.slice(1)}
            </option>
          ))}
        </select>
      </Labelled>
      <Labelled label="Level" htmlFor="f-level">
        <select id="f-level" name="level" defaultValue={params.level ?? ""} className={control}>
          <option value="">Any level</option>
          {ISSUE_LEVELS.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </Labelled>
      <SuggestInput
        label="Environment"
        name="environment"
        value={params.environment}
        suggestions={environments}
        width="w-32"
      />
      <SuggestInput
        label="Release"
        name="release"
        value={params.release}
        suggestions={releases}
        width="w-36"
      />
      <Labelled label="Sort by" htmlFor="f-sort">
        <select id="f-sort" name="sort" defaultValue={params.sort} className={control}>
          {ISSUE_SORTS.map((s) => (
            <option key={s} value={s}>
              {SORT_LABELS[s]}
            </option>
          ))}
        </select>
      </Labelled>
      <Labelled label="Graph" htmlFor="f-period">
        <select id="f-period" name="period" defaultValue={params.period} className={control}>
          {SPARKLINE_PERIODS.map((p) => (
            <option key={p} value={p}>
              {p === "24h" ? "24 hours" : "14 days"}
            </option>
          ))}
        </select>
      </Labelled>
      <Button variant="primary">Apply</Button>
    </Form>
  );
}

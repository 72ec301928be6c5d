"use client";

import Form from "next/form";
import { type FormEvent, type ReactNode, useState } from "react";
import { Button } from "@/components/ui/button";
import type { ProjectOption } from "@/src/issues/list-options";
import { ISSUE_SORTS, type IssueListParams, SPARKLINE_PERIODS } from "@/src/issues/schemas";
import { describeSearchError, parseSearch, type SearchError } from "@/src/issues/search/parse";
import { SearchBox } from "./search-box";

const SORT_LABELS: Record<(typeof ISSUE_SORTS)[number], string> = {
  last_seen: "Last seen",
  first_seen: "First seen",
  events: "Events",
  users: "Users",
};

const control = "rounded border border-line bg-canvas px-2 py-1 text-sm text-fg";

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

/** The query with the part an error points at marked, so the eye finds it. */
function ErrorMark({ query, error }: { query: string; error: SearchError }) {
  const end = Math.min(query.length, error.position + error.length);
  return (
    <code className="block overflow-x-auto whitespace-pre font-mono text-xs text-muted">
      {query.slice(0, error.position)}
      <mark className="rounded bg-danger/20 text-danger">
        {query.slice(error.position, end) || " "}
      </mark>
      {query.slice(end)}
    </code>
  );
}

/**
 * The list's search as a GET form: the query in Sentry's language, the project, the sort and
 * the graph's period. A query that does not parse is refused here, before leaving the page,
 * so the list stays as it was and the error says where; without JavaScript the server says
 * the same under the box.
 */
export function IssueFilters({
  orgSlug,
  params,
  projects,
  tagKeys,
  memberEmails,
  serverError,
}: {
  orgSlug: string;
  params: IssueListParams;
  projects: ProjectOption[];
  tagKeys: string[];
  memberEmails: string[];
  serverError?: SearchError;
}) {
  const [query, setQuery] = useState(params.query);
  const [error, setError] = useState<{ query: string; error: SearchError } | undefined>(
    serverError && { query: params.query, error: serverError },
  );

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    const parsed = parseSearch(query);
    if (!parsed.ok) {
      e.preventDefault();
      setError({ query, error: parsed.error });
      return;
    }
    setError(undefined);
  }

  return (
    <Form
      action={`/${orgSlug}/issues`}
      role="search"
      aria-label="Search issues"
      className="mb-3 flex flex-wrap items-start gap-2"
      onSubmit={onSubmit}
    >
      <div className="flex min-w-72 flex-1 flex-col gap-0.5">
        <label htmlFor="issue-search" className="text-xs text-muted">
          Search (<span className="font-mono">key:value</span> and text)
        </label>
        <SearchBox
          orgSlug={orgSlug}
          name="query"
          defaultValue={params.query}
          tagKeys={tagKeys}
          memberEmails={memberEmails}
          invalid={error !== undefined}
          describedBy={error ? "search-error" : "search-help"}
          onChange={setQuery}
        />
        {error ? (
          <div id="search-error" role="alert" className="text-xs text-danger">
            <p>{describeSearchError(error.error)}</p>
            <ErrorMark query={error.query} error={error.error} />
          </div>
        ) : (
          <p id="search-help" className="text-xs text-muted">
            e.g.{" "}
            <span className="font-mono">
              is:unresolved !level:info release:latest age:-24h checkout
            </span>
          </p>
        )}
      </div>
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
      <div className="flex flex-col gap-0.5">
        <span className="text-xs" aria-hidden="true">
          &nbsp;
        </span>
        <Button variant="primary">Search</Button>
      </div>
    </Form>
  );
}

"use client";

import { useActionState } from "react";
import { deleteSearch, saveSearch } from "@/app/[org]/issues/actions";
import { Button } from "@/components/ui/button";
import type { SavedSearch } from "@/src/issues/saved-searches";

/**
 * Saved searches beside the list: the organization's (made by admins) and the user's own,
 * each a link; the current search can be saved under a name, and for everyone by an admin.
 */
export function SavedSearches({
  org,
  searches,
  currentQuery,
  canShare,
  hrefOf,
}: {
  org: string;
  searches: SavedSearch[];
  currentQuery: string;
  canShare: boolean;
  /** The list's URL for each saved search's id. */
  hrefOf: Record<number, string>;
}) {
  const [saved, save, saving] = useActionState(saveSearch, null);
  const shared = searches.filter((s) => s.shared);
  const own = searches.filter((s) => !s.shared);
  return (
    <details className="mb-3 rounded border border-line bg-surface px-2 py-1 text-sm">
      <summary className="cursor-pointer select-none font-medium">
        Saved searches <span className="text-muted">({searches.length})</span>
      </summary>
      <div className="mt-2 grid gap-3 sm:grid-cols-2">
        <SearchList
          title="Organization"
          org={org}
          searches={shared}
          hrefOf={hrefOf}
          canDelete={canShare}
        />
        <SearchList title="Mine" org={org} searches={own} hrefOf={hrefOf} canDelete />
      </div>
      <form action={save} className="mt-2 flex flex-wrap items-end gap-2 border-t border-line pt-2">
        <input type="hidden" name="org" value={org} />
        <input type="hidden" name="query" value={currentQuery} />
        <label className="flex flex-col gap-0.5 text-xs text-muted">
          Save this search as
          <input
            name="name"
            required
            maxLength={100}
            className="rounded border border-line bg-canvas px-2 py-1 text-sm text-fg"
          />
        </label>
        {canShare && (
          <label className="flex items-center gap-1 text-xs">
            <input type="checkbox" name="shared" /> For the whole organization
          </label>
        )}
        <Button disabled={saving}>Save search</Button>
        {saved && (
          <p
            role={saved.ok ? "status" : "alert"}
            className={`basis-full text-xs ${saved.ok ? "text-ok" : "text-danger"}`}
          >
            {saved.message}
          </p>
        )}
      </form>
    </details>
  );
}

function SearchList({
  title,
  org,
  searches,
  hrefOf,
  canDelete,
}: {
  title: string;
  org: string;
  searches: SavedSearch[];
  hrefOf: Record<number, string>;
  canDelete: boolean;
}) {
  return (
    <section aria-label={`${title} saved searches`}>
      <h2 className="mb-1 text-xs font-semibold text-muted">{title}</h2>
      {searches.length === 0 ? (
        <p className="text-xs text-muted">None yet.</p>
      ) : (
        <ul className="flex flex-col gap-1">
          {searches.map((s) => (
            <li key={s.id} className="flex items-center justify-between gap-2">
              <a href={hrefOf[s.id]} className="min-w-0 truncate" title={s.query}>
                {s.name}{" "}
                <span className="font-mono text-xs text-muted">{s.query || "(every issue)"}</span>
              </a>
              {canDelete && <DeleteSearch org={org} search={s} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function DeleteSearch({ org, search }: { org: string; search: SavedSearch }) {
  const [state, remove, pending] = useActionState(deleteSearch, null);
  return (
    <form action={remove} className="flex shrink-0 items-center gap-1">
      <input type="hidden" name="org" value={org} />
      <input type="hidden" name="id" value={search.id} />
      <Button variant="ghost" disabled={pending} aria-label={`Remove saved search ${search.name}`}>
        ×
      </Button>
      {state && !state.ok && (
        <span role="alert" className="text-xs text-danger">
          {state.message}
        </span>
      )}
    </form>
  );
}

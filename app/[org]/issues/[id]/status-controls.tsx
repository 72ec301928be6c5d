import type { ReactNode } from "react";
import type { IssueStatus } from "@/src/db/schema";
import { IGNORE_DURATIONS } from "@/src/issues/team-schemas";
import { ignoreIssue, resolveIssue, unresolveIssue } from "./actions";
import { IssueActionForm } from "./issue-action-form";

const field = "rounded border border-line bg-canvas px-2 py-1 text-sm";

/**
 * Resolve, ignore and unresolve, each with its conditions behind a disclosure: resolve in the
 * next release or a given one; ignore until more events or users, for a while, or forever.
 */
export function StatusControls({
  org,
  issueId,
  status,
  releases,
}: {
  org: string;
  issueId: number;
  status: IssueStatus;
  releases: string[];
}) {
  const common = { org, issueId };
  return (
    <div className="flex flex-wrap items-start gap-2">
      {status !== "resolved" && (
        <>
          <IssueActionForm
            {...common}
            action={resolveIssue}
            submitLabel="Resolve"
            variant="primary"
          />
          <Menu label="Resolve in…">
            <IssueActionForm
              {...common}
              action={resolveIssue}
              submitLabel="Resolve in release"
              className="flex flex-col items-start gap-2"
            >
              <fieldset className="flex flex-col gap-1.5">
                <legend className="mb-1 text-xs text-muted">The fix ships in</legend>
                <label className="flex items-center gap-2">
                  <input type="radio" name="resolution" value="next" defaultChecked />
                  the next release
                </label>
                <label className="flex items-center gap-2">
                  <input type="radio" name="resolution" value="release" />
                  release
                  <input
                    name="release"
                    list={`releases-${issueId}`}
                    maxLength={200}
                    aria-label="Release the fix is in"
                    placeholder={releases[0] ?? "1.2.3"}
                    className={`${field} w-36`}
                  />
                </label>
                <datalist id={`releases-${issueId}`}>
                  {releases.map((r) => (
                    <option key={r} value={r} />
                  ))}
                </datalist>
              </fieldset>
              <p className="max-w-64 text-xs text-muted">
                Events of earlier releases keep it resolved; one of a later release reopens it as a
                regression.
              </p>
            </IssueActionForm>
          </Menu>
        </>
      )}
      {status !== "unresolved" && (
        <IssueActionForm {...common} action={unresolveIssue} submitLabel="Unresolve" />
      )}
      {status !== "ignored" && (
        <>
          <IssueActionForm {...common} action={ignoreIssue} submitLabel="Ignore" />
          <Menu label="Ignore until…">
            <IssueActionForm
              {...common}
              action={ignoreIssue}
              submitLabel="Ignore until then"
              className="flex flex-col items-start gap-2"
            >
              <fieldset className="flex flex-col gap-1.5">
                <legend className="mb-1 text-xs text-muted">Back to unresolved after</legend>
                <label className="flex items-center gap-2">
                  <input type="radio" name="until" value="count" defaultChecked />
                  <input
                    name="count"
                    type="number"
                    min={1}
                    defaultValue={100}
                    aria-label="Number of more events"
                    className={`${field} w-24`}
                  />
                  more events
                </label>
                <label className="flex items-center gap-2">
                  <input type="radio" name="until" value="users" />
                  <input
                    name="users"
                    type="number"
                    min={1}
                    defaultValue={10}
                    aria-label="Number of more users"
                    className={`${field} w-24`}
                  />
                  more users
                </label>
                <label className="flex items-center gap-2">
                  <input type="radio" name="until" value="duration" />
                  <select
                    name="minutes"
                    aria-label="Ignore for"
                    defaultValue="1440"
                    className={field}
                  >
                    {IGNORE_DURATIONS.map((d) => (
                      <option key={d.minutes} value={d.minutes}>
                        {d.label}
                      </option>
                    ))}
                  </select>
                  have passed
                </label>
              </fieldset>
            </IssueActionForm>
          </Menu>
        </>
      )}
    </div>
  );
}

function Menu({ label, children }: { label: string; children: ReactNode }) {
  return (
    <details className="relative">
      <summary className="inline-flex cursor-pointer list-none items-center rounded border border-line bg-surface px-2.5 py-1 text-sm font-medium hover:bg-raised">
        {label}
      </summary>
      <div className="absolute right-0 z-10 mt-1 min-w-72 rounded border border-line bg-canvas p-3 shadow-lg">
        {children}
      </div>
    </details>
  );
}

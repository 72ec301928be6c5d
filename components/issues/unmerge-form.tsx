"use client";

import { useActionState } from "react";
import { unmerge } from "@/app/[org]/issues/[id]/merged/actions";
import { Button } from "@/components/ui/button";

const count = new Intl.NumberFormat("en");

/** The fingerprints of an issue with a box each; unmerging needs one left behind. */
export function UnmergeForm({
  org,
  issueId,
  canWrite,
  fingerprints,
}: {
  org: string;
  issueId: number;
  canWrite: boolean;
  fingerprints: {
    fingerprint: string;
    primary: boolean;
    events: number;
    latestTitle: string | null;
    mergedAt: number | null;
  }[];
}) {
  const [state, action, pending] = useActionState(unmerge, null);
  const single = fingerprints.length < 2;
  return (
    <form action={action} aria-label="Unmerge">
      <input type="hidden" name="org" value={org} />
      <input type="hidden" name="issueId" value={issueId} />
      <table className="mb-3 w-full max-w-4xl border-collapse text-left">
        <thead className="border-b border-line text-xs text-muted">
          <tr>
            <th scope="col" className="w-8 py-1.5">
              <span className="sr-only">Select</span>
            </th>
            <th scope="col" className="py-1.5 font-medium">
              Fingerprint
            </th>
            <th scope="col" className="py-1.5 font-medium">
              Latest event
            </th>
            <th scope="col" className="py-1.5 text-right font-medium">
              Events
            </th>
          </tr>
        </thead>
        <tbody>
          {fingerprints.map((f) => (
            <tr key={f.fingerprint} className="border-b border-line">
              <td className="py-1.5">
                {canWrite && !single && (
                  <input
                    type="checkbox"
                    name="fingerprint"
                    value={f.fingerprint}
                    aria-label={`Unmerge fingerprint ${f.fingerprint.slice(0, 12)}`}
                  />
                )}
              </td>
              <td className="py-1.5 font-mono text-xs">
                {f.fingerprint.slice(0, 16)}
                {f.primary ? (
                  <span className="ml-2 text-muted">(the issue&apos;s own)</span>
                ) : (
                  " (merged)"
                )}
              </td>
              <td className="max-w-md truncate py-1.5">{f.latestTitle?.slice(0, 300) ?? "—"}</td>
              <td className="py-1.5 text-right tabular-nums">{count.format(f.events)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {single ? (
        <p className="text-muted">This issue has one fingerprint: nothing was merged into it.</p>
      ) : (
        canWrite && (
          <Button variant="primary" disabled={pending}>
            Unmerge
          </Button>
        )
      )}
      {state && (
        <p
          role={state.ok ? "status" : "alert"}
          className={`mt-2 text-sm ${state.ok ? "text-ok" : "text-danger"}`}
        >
          {state.message}
        </p>
      )}
    </form>
  );
}

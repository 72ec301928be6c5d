import { replayDeadLettersAction } from "@/app/[org]/stats/actions";
import { Button } from "@/components/ui/button";
import { RelativeTime } from "@/components/ui/relative-time";
import { getDb } from "@/src/db/connection";
import { orgDeadLetters } from "@/src/stats/dead-letters";

/**
 * For admins: envelopes the worker accepted but could not store even alone (counted as
 * invalid, internal_error), with the database's error, and a replay once the cause is fixed.
 * Shown only when there are any.
 */
export async function DeadLetters({ orgId, orgSlug }: { orgId: number; orgSlug: string }) {
  const { total, rows } = await orgDeadLetters(getDb(), orgId);
  if (total === 0) return null;
  return (
    <section aria-labelledby="dead-letters" className="mb-4 rounded border border-line p-3">
      <h2 id="dead-letters" className="mb-1 text-sm font-semibold">
        Not stored: {total} envelope{total === 1 ? "" : "s"}
      </h2>
      <p className="mb-2 max-w-3xl text-xs text-muted">
        Accepted, then refused by the database even on their own; kept whole so nothing is lost, and
        counted as <em>invalid (internal_error)</em> below. Replay them once the cause is fixed (or
        run <code>npm run admin -- queue replay-dead-letters</code>).
      </p>
      <form action={replayDeadLettersAction} className="mb-2">
        <input type="hidden" name="org" value={orgSlug} />
        <Button>Replay all</Button>
      </form>
      <table className="w-full text-left text-xs">
        <thead className="text-muted">
          <tr>
            <th className="py-1 pr-3 font-medium">#</th>
            <th className="py-1 pr-3 font-medium">Project</th>
            <th className="py-1 pr-3 font-medium">Kind</th>
            <th className="py-1 pr-3 font-medium">Size</th>
            <th className="py-1 pr-3 font-medium">Failed</th>
            <th className="py-1 pr-3 font-medium">Attempts</th>
            <th className="py-1 font-medium">Error</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} className="border-t border-line align-top">
              <td className="py-1 pr-3 tabular-nums">{r.id}</td>
              <td className="py-1 pr-3">{r.projectSlug}</td>
              <td className="py-1 pr-3">{r.kind}</td>
              <td className="py-1 pr-3 tabular-nums">{r.bytes.toLocaleString("en")} B</td>
              <td className="py-1 pr-3">
                <RelativeTime ms={r.failedAt} />
              </td>
              <td className="py-1 pr-3 tabular-nums">{r.attempts}</td>
              <td className="break-all py-1 font-mono">{r.error}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

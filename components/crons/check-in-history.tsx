import { formatDuration } from "@/components/crons/monitor-bits";
import { getDb } from "@/src/db/connection";
import { monitorCheckInsResponse } from "@/src/monitors/api";

/**
 * A monitor's check-in history, as the check-ins API gives it (newest first), streamed
 * behind Suspense on the monitor page. A missed run shows the time it was expected.
 */
export async function CheckInHistory({
  orgSlug,
  monitorSlug,
}: {
  orgSlug: string;
  monitorSlug: string;
}) {
  const history = await monitorCheckInsResponse(getDb(), orgSlug, monitorSlug);
  return history.length === 0 ? (
    <p className="mb-4 text-muted">No check-ins yet.</p>
  ) : (
    <table aria-label="Check-ins" className="mb-4 w-full border-collapse text-sm">
      <thead>
        <tr className="border-b border-line text-left text-xs text-muted uppercase">
          <th scope="col" className="py-1 pr-4">
            Status
          </th>
          <th scope="col" className="py-1 pr-4">
            Started or expected
          </th>
          <th scope="col" className="py-1 pr-4">
            Duration
          </th>
          <th scope="col" className="py-1 pr-4">
            Environment
          </th>
          <th scope="col" className="py-1">
            Release
          </th>
        </tr>
      </thead>
      <tbody>
        {history.map((c) => (
          <tr
            key={c.id}
            data-checkin={c.status}
            className="border-b border-line [&>td]:py-1 [&>td]:pr-4"
          >
            <td>{c.status.replace("_", " ")}</td>
            <td className="whitespace-nowrap font-mono text-xs">
              {(c.expectedTime && c.status === "missed" ? c.expectedTime : c.dateCreated)
                ?.replace("T", " ")
                .slice(0, 19)}
            </td>
            <td data-duration>{formatDuration(c.duration)}</td>
            <td className="break-all">{c.environment ?? "–"}</td>
            <td className="break-all">{c.release ?? "–"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

import type { Metadata } from "next";
import Link from "next/link";
import { unauthorized } from "next/navigation";
import { Button } from "@/components/ui/button";
import { getAuth } from "@/src/auth/auth";
import { currentSession } from "@/src/auth/session";
import { listOwnSessions } from "@/src/auth/sessions";
import { getDb } from "@/src/db/connection";
import { firstOrgSlugOf } from "@/src/orgs/queries";
import { endOtherSessionsAction, endSession } from "./actions";

export const metadata: Metadata = { title: "Security · Faultline" };

const ERRORS: Record<string, string> = {
  invalid: "The form was not understood.",
  not_found: "That session has ended already.",
};

const time = (ms: number) => `${new Date(ms).toISOString().replace("T", " ").slice(0, 16)} UTC`;

/** Account → Security: where this account is signed in, and ending any of it. */
export default async function SecurityPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const current = await currentSession();
  if (!current) unauthorized();
  const { ended, error } = await searchParams;
  const sessions = await listOwnSessions(await getAuth(), current.user.id, current.token);
  const home = `/${(await firstOrgSlugOf(getDb(), current.user.id)) ?? ""}`;

  return (
    <main className="mx-auto mt-[8vh] max-w-2xl px-6">
      <p className="mb-6 text-xs font-semibold tracking-widest text-muted uppercase">Faultline</p>
      <div className="rounded-lg border border-line bg-surface p-6">
        <h1 className="mb-3 text-xl font-semibold">Sessions</h1>
        <p className="mb-4 text-muted">
          Where {current.user.email} is signed in. <Link href={home}>Back</Link>
        </p>
        {typeof ended === "string" && /^\d+$/.test(ended) && (
          <p role="status">
            {ended === "1" ? "The session has ended." : `${ended} sessions have ended.`}
          </p>
        )}
        {typeof error === "string" && ERRORS[error] && <p role="alert">{ERRORS[error]}</p>}
        <table aria-label="Sessions" className="mb-4 w-full text-sm">
          <thead>
            <tr className="text-left">
              <th>Device</th>
              <th>IP address</th>
              <th>Signed in</th>
              <th>Last active</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id} data-session={s.current ? "current" : "other"}>
                <td>{s.device}</td>
                <td>{s.ip ?? "unknown"}</td>
                <td>{time(s.createdAt)}</td>
                <td>{time(s.lastActiveAt)}</td>
                <td>
                  {s.current ? (
                    "This session"
                  ) : (
                    <form action={endSession}>
                      <input type="hidden" name="sessionId" value={s.id} />
                      <Button>End</Button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {sessions.length > 1 && (
          <form action={endOtherSessionsAction}>
            <Button variant="primary">End all other sessions</Button>
          </form>
        )}
      </div>
    </main>
  );
}

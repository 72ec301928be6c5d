import type { ReactNode } from "react";
import { RelativeTime } from "@/components/ui/relative-time";
import type { TokenSummary } from "@/src/tokens/queries";

/** A list of tokens: what each is called and can do, when it was last used, a way to revoke it. */
export function TokenTable({
  tokens,
  prefix,
  showCreator = false,
  showExpiry = false,
  revoke,
  empty,
}: {
  tokens: TokenSummary[];
  prefix: string;
  showCreator?: boolean;
  showExpiry?: boolean;
  revoke?: (token: TokenSummary) => ReactNode;
  empty: ReactNode;
}) {
  if (tokens.length === 0) return <p className="text-muted">{empty}</p>;
  const now = Date.now();
  return (
    <table className="w-full border-collapse">
      <thead>
        <tr className="border-b border-line text-left text-xs text-muted uppercase">
          <th scope="col">Name</th>
          <th scope="col">Token</th>
          <th scope="col">Scopes</th>
          {showCreator && <th scope="col">Created by</th>}
          <th scope="col">Created</th>
          {showExpiry && <th scope="col">Expires</th>}
          <th scope="col">Last used</th>
          {revoke && <th scope="col">Revoke</th>}
        </tr>
      </thead>
      <tbody>
        {tokens.map((t) => (
          <tr key={t.id} className="border-b border-line align-top [&>td]:py-2 [&>td]:pr-4">
            <td>{t.name}</td>
            <td>
              <code>
                {prefix}…{t.tokenLastCharacters}
              </code>
            </td>
            <td className="text-xs">{t.scopes.join(" ")}</td>
            {showCreator && <td>{t.createdBy ?? "—"}</td>}
            <td>
              <RelativeTime ms={t.createdAt} now={now} />
            </td>
            {showExpiry && (
              <td>
                {t.expiresAt === null ? (
                  "never"
                ) : t.expiresAt <= now ? (
                  <span className="text-danger">expired</span>
                ) : (
                  <RelativeTime ms={t.expiresAt} now={now} />
                )}
              </td>
            )}
            <td>
              {t.lastUsedAt === null ? "never" : <RelativeTime ms={t.lastUsedAt} now={now} />}
            </td>
            {revoke && <td>{revoke(t)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

import { headers } from "next/headers";
import { CodeBlock } from "@/components/ui/code-block";
import { getDb } from "@/src/db/connection";
import { firstProjectKey } from "@/src/issues/list-options";
import { publicBaseUrl } from "@/src/projects/base-url";
import { formatDsn } from "@/src/projects/dsn";

/**
 * An empty page's lesson: what turns this data on in the SDK, with a project's real DSN in
 * the snippet. `snippet` receives the DSN.
 */
export async function SetupHint({
  orgId,
  title,
  children,
  snippet,
}: {
  orgId: number;
  title: string;
  children: React.ReactNode;
  snippet: (dsn: string) => string;
}) {
  const key = await firstProjectKey(getDb(), orgId);
  const dsn = key && formatDsn(publicBaseUrl(await headers()), key.publicKey, key.projectId);
  return (
    <section aria-label={title} className="max-w-2xl rounded border border-line bg-surface p-4">
      <h2 className="mb-1 text-base font-semibold">{title}</h2>
      <div className="mb-3 text-muted">{children}</div>
      {dsn ? (
        <>
          <p className="mb-1 text-muted">
            For example, in Node.js (project <strong className="text-fg">{key.projectSlug}</strong>
            ):
          </p>
          <CodeBlock label="snippet" code={snippet(dsn)} />
        </>
      ) : (
        <p className="text-muted">This organization has no project with an enabled DSN key yet.</p>
      )}
    </section>
  );
}

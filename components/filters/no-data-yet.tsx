import { headers } from "next/headers";
import { CodeBlock } from "@/components/ui/code-block";
import { getDb } from "@/src/db/connection";
import { env } from "@/src/env";
import { firstProjectKey } from "@/src/issues/list-options";
import { formatDsn } from "@/src/projects/dsn";

/**
 * The empty state that teaches: which SDK option turns this data on, with a DSN of the
 * organization to paste. `options` are the lines inside `Sentry.init({ … })` besides the dsn.
 */
export async function NoDataYet({
  orgId,
  title,
  what,
  options,
}: {
  orgId: number;
  title: string;
  /** "transactions", "traces", … */
  what: string;
  options: string[];
}) {
  const key = await firstProjectKey(getDb(), orgId);
  const h = await headers();
  const origin = `${h.get("x-forwarded-proto") ?? "http"}://${h.get("host") ?? "localhost"}`;
  const dsn = key && formatDsn(env().FAULTLINE_URL ?? origin, key.publicKey, key.projectId);
  const init = [`  dsn: "${dsn ?? "<your DSN>"}",`, ...options.map((o) => `  ${o},`)].join("\n");
  return (
    <section aria-label={title} className="max-w-2xl rounded border border-line bg-surface p-4">
      <h2 className="mb-1 text-base font-semibold">{title}</h2>
      <p className="mb-3 text-muted">
        No {what} in this selection.{" "}
        {key ? (
          <>
            To send {what} from project <strong className="text-fg">{key.projectSlug}</strong>, turn
            them on in the SDK:
          </>
        ) : (
          <>This organization has no project with an enabled DSN key yet.</>
        )}
      </p>
      <CodeBlock
        label="snippet"
        code={`import * as Sentry from "@sentry/node";\n\nSentry.init({\n${init}\n});`}
      />
    </section>
  );
}

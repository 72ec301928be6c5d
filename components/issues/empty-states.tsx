import Link from "next/link";
import { CodeBlock } from "@/components/ui/code-block";

/** No issue at all yet: what to do about it, with the DSN to paste. */
export function NoIssuesYet({ dsn, projectSlug }: { dsn?: string; projectSlug?: string }) {
  return (
    <section
      aria-labelledby="no-issues"
      className="max-w-2xl rounded border border-line bg-surface p-4"
    >
      <h2 id="no-issues" className="mb-1 text-base font-semibold">
        No issues yet
      </h2>
      {dsn ? (
        <>
          <p className="mb-3 text-muted">
            Point any Sentry SDK at project <strong className="text-fg">{projectSlug}</strong> with
            this DSN; the first error it reports shows up here.
          </p>
          <div className="mb-3">
            <CodeBlock code={dsn} label="DSN" />
          </div>
          <p className="mb-1 text-muted">For example, in Node.js:</p>
          <CodeBlock
            label="snippet"
            code={`npm install @sentry/node\n\n// at the very start of your app\nimport * as Sentry from "@sentry/node";\n\nSentry.init({ dsn: "${dsn}" });`}
          />
        </>
      ) : (
        <p className="text-muted">This organization has no project with an enabled DSN key yet.</p>
      )}
    </section>
  );
}

/** Filters that match nothing: say so, and offer the way back. */
export function NoMatches({ clearHref }: { clearHref: string }) {
  return (
    <div className="rounded border border-line bg-surface p-4">
      <p className="mb-1 font-medium">No issues match these filters.</p>
      <Link href={clearHref}>Clear the filters</Link>
    </div>
  );
}

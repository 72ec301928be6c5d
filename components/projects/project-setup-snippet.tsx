import { allSnippetPlatforms, setupSnippet, snippetPlatformsFor } from "@/src/projects/snippets";
import { CodeBlock } from "../ui/code-block";

/**
 * How to send events to a project: the install command and the SDK setup with the project's
 * real DSN, for its platform (or for every platform when it has none we know). Also meant for
 * an empty issue list, which teaches instead of showing nothing.
 */
export function ProjectSetupSnippet({
  dsn,
  platform,
  all = false,
  headingLevel = 3,
}: {
  dsn: string;
  platform: string | null;
  /** Every platform's snippet, the project's own first. */
  all?: boolean;
  headingLevel?: 2 | 3 | 4;
}) {
  const Heading = `h${headingLevel}` as const;
  return (
    <div className="grid gap-5">
      {(all ? allSnippetPlatforms(platform) : snippetPlatformsFor(platform)).map((p) => {
        const snippet = setupSnippet(p, dsn);
        return (
          <section key={p} aria-label={`${snippet.title} setup`} className="grid gap-2">
            <Heading className="text-sm font-semibold">{snippet.title}</Heading>
            <CodeBlock code={snippet.install} label={`${snippet.title} install command`} />
            {snippet.files.map((file) => (
              <div key={file.name} className="grid gap-1">
                <p className="font-mono text-xs text-muted">{file.name}</p>
                <CodeBlock code={file.code} label={`${snippet.title} ${file.label}`} />
              </div>
            ))}
          </section>
        );
      })}
    </div>
  );
}

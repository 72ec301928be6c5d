import { otlpSnippets, otlpTarget } from "@/src/projects/otlp-snippets";
import { CodeBlock } from "../ui/code-block";

/**
 * How to send OpenTelemetry traces and logs to a project over OTLP/HTTP: the SDK
 * environment variables, Node.js, Python and a Collector, each with the project's endpoint
 * and key filled in.
 */
export function OtlpSetupSnippet({
  dsn,
  headingLevel = 3,
}: {
  dsn: string;
  headingLevel?: 2 | 3 | 4;
}) {
  const target = otlpTarget(dsn);
  if (!target) return null;
  const Heading = `h${headingLevel}` as const;
  return (
    <div className="grid gap-5">
      {otlpSnippets(target).map((snippet) => (
        <section key={snippet.id} aria-label={`${snippet.title} setup`} className="grid gap-2">
          <Heading className="text-sm font-semibold">{snippet.title}</Heading>
          {snippet.install && (
            <CodeBlock code={snippet.install} label={`${snippet.title} install command`} />
          )}
          {snippet.files.map((file) => (
            <div key={file.name} className="grid gap-1">
              <p className="font-mono text-xs text-muted">{file.name}</p>
              <CodeBlock code={file.code} label={`${snippet.title} ${file.label}`} />
            </div>
          ))}
        </section>
      ))}
    </div>
  );
}

import Link from "next/link";
import { ActionForm, type FormAction } from "@/components/projects/action-form";
import { CodeBlock } from "@/components/ui/code-block";
import { RelativeTime } from "@/components/ui/relative-time";
import type { BundleView } from "@/src/sourcemaps/queries";
import { sourcemapSnippets } from "@/src/sourcemaps/snippets";

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 ** 2).toFixed(1)} MB`;
}

/** The project's uploaded artifact bundles, and how to upload them. */
export function SourceMapsSection({
  bundles,
  baseUrl,
  org,
  project,
  remove,
}: {
  bundles: BundleView[];
  baseUrl: string;
  org: string;
  project: string;
  /** Present when the viewer may delete bundles. */
  remove?: FormAction;
}) {
  return (
    <section aria-labelledby="sourcemaps" className="mb-8">
      <h2 id="sourcemaps" className="mb-1 text-base font-semibold">
        Source maps
      </h2>
      <p className="mb-3 text-xs text-muted">
        Upload your build's source maps and stack traces show original files, functions and lines.
        Uploads need an <Link href={`/${org}/settings/auth-tokens`}>organization auth token</Link>{" "}
        (scope <code className="font-mono">org:ci</code>).
      </p>
      {bundles.length === 0 ? (
        <p className="mb-3 text-muted">No bundles uploaded to this project yet.</p>
      ) : (
        <table className="mb-4 w-full text-left text-xs">
          <thead className="text-muted">
            <tr>
              <th className="py-1 pr-2 font-normal">Release</th>
              <th className="py-1 pr-2 font-normal">Dist</th>
              <th className="py-1 pr-2 font-normal">Debug IDs</th>
              <th className="py-1 pr-2 font-normal">Files</th>
              <th className="py-1 pr-2 font-normal">Size</th>
              <th className="py-1 pr-2 font-normal">Uploaded</th>
              {remove && <th className="py-1 font-normal">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {bundles.map((b) => (
              <tr key={b.id} className="border-t border-line align-top" data-bundle={b.id}>
                <td className="py-1 pr-2">{b.release ?? <span className="text-muted">—</span>}</td>
                <td className="py-1 pr-2">{b.dist ?? <span className="text-muted">—</span>}</td>
                <td className="py-1 pr-2 font-mono">
                  {b.debugIds.length === 0 ? (
                    <span className="text-muted">none</span>
                  ) : (
                    <details>
                      <summary>
                        {b.debugIds[0]}
                        {b.debugIds.length > 1 ? ` +${b.debugIds.length - 1}` : ""}
                      </summary>
                      <ul>
                        {b.debugIds.map((id) => (
                          <li key={id}>{id}</li>
                        ))}
                      </ul>
                    </details>
                  )}
                  {b.state !== "ok" && (
                    <p className={b.state === "error" ? "text-danger" : "text-muted"}>
                      {b.state}
                      {b.detail ? `: ${b.detail}` : ""}
                    </p>
                  )}
                </td>
                <td className="py-1 pr-2">{b.fileCount}</td>
                <td className="py-1 pr-2">{formatBytes(b.size)}</td>
                <td className="py-1 pr-2">
                  <RelativeTime ms={b.createdAt} />
                  {b.uploadedBy && <span className="text-muted"> by {b.uploadedBy}</span>}
                </td>
                {remove && (
                  <td className="py-1">
                    <ActionForm
                      action={remove}
                      fields={{ org, project, bundle: String(b.id) }}
                      submitLabel="Delete"
                      submitAriaLabel={`Delete bundle ${b.release ?? b.debugIds[0] ?? b.id}`}
                      variant="danger"
                    />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="grid gap-3">
        {sourcemapSnippets(baseUrl, org, project).map((s) => (
          <div key={s.key}>
            <h3 className="mb-1 text-sm font-medium">{s.title}</h3>
            <CodeBlock code={s.code} label={s.title} />
          </div>
        ))}
      </div>
    </section>
  );
}

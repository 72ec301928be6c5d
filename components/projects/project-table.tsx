import Link from "next/link";
import type { ProjectSummary } from "@/src/projects/queries";
import { knownPlatform, PLATFORM_LABELS } from "@/src/projects/schemas";
import { RelativeTime } from "../ui/relative-time";

export function platformLabel(platform: string | null): string {
  if (!platform) return "—";
  const known = knownPlatform(platform);
  return known ? PLATFORM_LABELS[known] : platform;
}

/** The organization's projects, densely: one row each, linking to its settings. */
export function ProjectTable({ org, projects }: { org: string; projects: ProjectSummary[] }) {
  if (projects.length === 0) {
    return <p className="text-muted">This organization has no projects yet.</p>;
  }
  const now = Date.now();
  return (
    <table className="w-full border-collapse text-left">
      <thead className="border-b border-line text-xs text-muted">
        <tr>
          <th scope="col" className="py-1.5 pr-4 font-medium">
            Project
          </th>
          <th scope="col" className="py-1.5 pr-4 font-medium">
            Slug
          </th>
          <th scope="col" className="py-1.5 pr-4 font-medium">
            Platform
          </th>
          <th scope="col" className="py-1.5 pr-4 text-right font-medium">
            Issues
          </th>
          <th scope="col" className="py-1.5 font-medium">
            Last event
          </th>
        </tr>
      </thead>
      <tbody>
        {projects.map((p) => (
          <tr key={p.id} className="border-b border-line hover:bg-surface">
            <td className="py-1.5 pr-4">
              <Link href={`/${org}/projects/${p.slug}`} className="font-medium">
                {p.name}
              </Link>
            </td>
            <td className="py-1.5 pr-4 font-mono text-xs">{p.slug}</td>
            <td className="py-1.5 pr-4 text-muted">{platformLabel(p.platform)}</td>
            <td className="py-1.5 pr-4 text-right tabular-nums">{p.issueCount}</td>
            <td className="py-1.5 text-muted">
              {p.lastSeen === null ? "never" : <RelativeTime ms={p.lastSeen} now={now} />}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

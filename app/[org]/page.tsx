import type { Metadata } from "next";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listOrgProjects } from "@/src/orgs/queries";
import { OrgNav, page } from "./org-nav";

export const metadata: Metadata = { title: "Projects · Faultline" };

export default async function OrgPage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const projects = await listOrgProjects(getDb(), ctx.org.id);
  return (
    <main style={page}>
      <OrgNav ctx={ctx} />
      <h1>Projects</h1>
      {projects.length === 0 ? (
        <p>This organization has no projects yet.</p>
      ) : (
        <ul>
          {projects.map((project) => (
            <li key={project.id}>
              {project.name} <code>{project.slug}</code>
              {project.platform && <span style={{ color: "GrayText" }}> · {project.platform}</span>}
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}

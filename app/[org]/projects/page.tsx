import type { Metadata } from "next";
import { CreateProjectForm } from "@/components/projects/create-project-form";
import { ProjectTable } from "@/components/projects/project-table";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { listProjectSummaries } from "@/src/projects/queries";
import { OrgNav, page } from "../org-nav";
import { createProject } from "./actions";

export const metadata: Metadata = { title: "Projects · Faultline" };

export default async function ProjectsPage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const projects = await listProjectSummaries(getDb(), ctx.org.id);
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="projects" />
      <h1 className="mb-3 text-lg font-semibold">Projects</h1>
      <ProjectTable org={ctx.org.slug} projects={projects} />
      {can(ctx.role, "projects.write") && (
        <section aria-labelledby="new-project" className="mt-8">
          <h2 id="new-project" className="mb-2 text-base font-semibold">
            {projects.length === 0 ? "Create the first project" : "New project"}
          </h2>
          {projects.length === 0 && (
            <p className="mb-2 text-muted">
              A project receives one application's events; creating it shows its DSN and the setup
              snippet for its platform.
            </p>
          )}
          <CreateProjectForm org={ctx.org.slug} action={createProject} />
        </section>
      )}
    </main>
  );
}

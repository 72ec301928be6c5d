import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ActionForm } from "@/components/projects/action-form";
import { DataSettingsForm } from "@/components/projects/data-settings-form";
import { KeyList, type KeyView } from "@/components/projects/key-list";
import { OtlpSetupSnippet } from "@/components/projects/otlp-setup-snippet";
import { ProjectSettingsForm } from "@/components/projects/project-settings-form";
import { ProjectSetupSnippet } from "@/components/projects/project-setup-snippet";
import { platformLabel } from "@/components/projects/project-table";
import { inputClass } from "@/components/projects/styles";
import { SourceMapsSection } from "@/components/sourcemaps/source-maps-section";
import { can } from "@/src/auth/permissions";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { publicBaseUrl } from "@/src/projects/base-url";
import { readDataSettings } from "@/src/projects/data-settings";
import { formatDsn } from "@/src/projects/dsn";
import { findOrgProject, listProjectKeys } from "@/src/projects/queries";
import { listProjectBundles } from "@/src/sourcemaps/queries";
import { OrgNav, page } from "../../org-nav";
import {
  createKey,
  deleteBundle,
  deleteKey,
  saveDataSettings,
  setKeyEnabled,
  setKeyRateLimit,
  updateProject,
} from "./actions";

export const metadata: Metadata = { title: "Project settings · Faultline" };

export default async function ProjectSettingsPage({
  params,
}: {
  params: Promise<{ org: string; slug: string }>;
}) {
  const { org, slug } = await params;
  const ctx = await withOrg(org, { need: "org.read" });
  const db = getDb();
  // Slugs are plain [a-z0-9-]: a segment that needed decoding names no project.
  const project = await findOrgProject(db, ctx.org.id, slug);
  if (!project) notFound();

  const base = publicBaseUrl(await headers());
  const keys: KeyView[] = (await listProjectKeys(db, project.id)).map((k) => ({
    publicKey: k.public_key,
    label: k.label,
    dsn: formatDsn(base, k.public_key, project.id),
    enabled: k.enabled === 1,
    createdAt: Number(k.created_at),
    rateLimit:
      k.rate_limit_window && k.rate_limit_count !== null
        ? { window: k.rate_limit_window, count: k.rate_limit_count }
        : null,
  }));
  const setupDsn = keys.find((k) => k.enabled)?.dsn;
  const fields = { org: ctx.org.slug, project: project.slug };
  const writesKeys = can(ctx.role, "keys.write");

  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="projects" />
      <p className="text-xs text-muted">
        <Link href={`/${ctx.org.slug}/projects`}>Projects</Link> /
      </p>
      <h1 className="mb-1 text-lg font-semibold">{project.name}</h1>
      <p className="mb-6 text-muted">
        <code className="font-mono text-xs">{project.slug}</code> ·{" "}
        {platformLabel(project.platform)} · project id {project.id}
      </p>

      {can(ctx.role, "projects.write") && (
        <section aria-labelledby="general" className="mb-8">
          <h2 id="general" className="mb-2 text-base font-semibold">
            General
          </h2>
          <ProjectSettingsForm
            fields={fields}
            name={project.name}
            platform={project.platform}
            action={updateProject}
          />
        </section>
      )}

      {can(ctx.role, "projects.write") && (
        <section aria-labelledby="data" className="mb-8">
          <h2 id="data" className="mb-2 text-base font-semibold">
            Data safety
          </h2>
          <DataSettingsForm
            fields={fields}
            settings={await readDataSettings(db, project.id)}
            action={saveDataSettings}
          />
        </section>
      )}

      <section aria-labelledby="keys" className="mb-8">
        <h2 id="keys" className="mb-1 text-base font-semibold">
          DSN keys
        </h2>
        <p className="mb-3 text-xs text-muted">
          An SDK sends events with a DSN. A disabled or deleted key is refused (403) right away.
        </p>
        <KeyList
          keys={keys}
          fields={fields}
          actions={
            writesKeys
              ? { setEnabled: setKeyEnabled, remove: deleteKey, setRateLimit: setKeyRateLimit }
              : undefined
          }
        />
        {writesKeys && (
          <ActionForm action={createKey} fields={fields} submitLabel="Create key" className="mt-3">
            <label className="grid gap-0.5">
              <span className="text-xs text-muted">Label of a new key</span>
              <input
                name="label"
                maxLength={64}
                placeholder="Default"
                className={`${inputClass} w-56`}
              />
            </label>
          </ActionForm>
        )}
      </section>

      <SourceMapsSection
        bundles={await listProjectBundles(db, project.id)}
        baseUrl={base}
        org={ctx.org.slug}
        project={project.slug}
        remove={can(ctx.role, "projects.write") ? deleteBundle : undefined}
      />

      <section aria-labelledby="setup">
        <h2 id="setup" className="mb-1 text-base font-semibold">
          Set up an SDK
        </h2>
        {setupDsn ? (
          <>
            <p className="mb-3 text-xs text-muted">
              Copy the snippet for your platform; it already carries this project's DSN.
            </p>
            <ProjectSetupSnippet dsn={setupDsn} platform={project.platform} all />
          </>
        ) : (
          <p className="text-muted">Enable or create a key to get a DSN for the SDK.</p>
        )}
      </section>

      {setupDsn && (
        <section aria-labelledby="otlp">
          <h2 id="otlp" className="mb-1 text-base font-semibold">
            Send OpenTelemetry traces and logs
          </h2>
          <p className="mb-3 text-xs text-muted">
            Any OpenTelemetry SDK or Collector can export to this project over OTLP/HTTP (protobuf
            or JSON); traces join those of Sentry SDKs by trace id.
          </p>
          <OtlpSetupSnippet dsn={setupDsn} />
        </section>
      )}
    </main>
  );
}

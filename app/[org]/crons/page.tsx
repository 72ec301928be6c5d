import type { Metadata } from "next";
import { headers } from "next/headers";
import { Suspense } from "react";
import { MonitorTable } from "@/components/crons/monitor-table";
import { withOrg } from "@/src/auth/with-org";
import { publicBaseUrl } from "@/src/projects/base-url";
import { OrgNav, page } from "../org-nav";

export const metadata: Metadata = { title: "Crons · Faultline" };

/** Cron monitors: the frame at once, the table streamed when its reads are done. */
export default async function CronsPage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  const baseUrl = publicBaseUrl(await headers());
  return (
    <main style={page}>
      <OrgNav ctx={ctx} current="crons" />
      <h1 className="mb-3 text-lg font-semibold">Crons</h1>
      <Suspense fallback={<p className="text-muted">Loading monitors…</p>}>
        <MonitorTable org={ctx.org} baseUrl={baseUrl} />
      </Suspense>
    </main>
  );
}

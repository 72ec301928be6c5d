import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";
import { selfMonitoringClientConfig } from "@/src/projects/self-monitoring";
import { SELF_MONITORING_META_NAME } from "@/src/projects/self-monitoring-config";

export const metadata: Metadata = {
  title: "Faultline",
  description: "Self-hosted error and performance monitoring for Sentry SDKs",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The self-monitoring DSN is created at first start, so pages render per request, not at build.
  await connection();
  const selfMonitoring = await selfMonitoringClientConfig();
  return (
    <html lang="en">
      <head>
        {selfMonitoring && (
          // React escapes the attribute; instrumentation-client.ts parses it back.
          <meta name={SELF_MONITORING_META_NAME} content={JSON.stringify(selfMonitoring)} />
        )}
      </head>
      <body>{children}</body>
    </html>
  );
}

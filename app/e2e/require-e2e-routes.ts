import { notFound } from "next/navigation";
import { connection } from "next/server";
import { env } from "@/src/env";

/**
 * The pages under /e2e/ fail on purpose for the browser tests. They exist only when the
 * server runs with FAULTLINE_E2E_ROUTES=1; otherwise they are a plain 404. Decided per request
 * (never at build time, when the variable is not set).
 */
export async function requireE2eRoutes(): Promise<void> {
  await connection();
  if (!env().FAULTLINE_E2E_ROUTES) notFound();
}

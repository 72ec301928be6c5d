"use client";

import { ApplicationError } from "@/components/errors/application-error";

/** Errors below the root layout: the layout stays, the page shows the generic error. */
export default function ErrorPage({ error, retry }: { error: unknown; retry: () => void }) {
  return <ApplicationError error={error} retry={retry} />;
}

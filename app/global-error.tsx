"use client";

import { ApplicationError } from "@/components/errors/application-error";

/** Errors in the root layout itself: this replaces the whole document, so it brings its own. */
export default function GlobalError({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <html lang="en">
      <body>
        <title>Application error · Faultline</title>
        <ApplicationError error={error} retry={retry} />
      </body>
    </html>
  );
}

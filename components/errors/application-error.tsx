"use client";

import * as Sentry from "@sentry/nextjs";
import { useEffect } from "react";
import { actionRow, linkStyle, StatusPage } from "./status-page";

/**
 * The seed contract's generic full-page error. Errors from server rendering reach the browser
 * without their message but with a digest (the server logs and the server-side report carry
 * the rest); errors thrown in the browser have none.
 */
const CLIENT_SIDE =
  "Application error: a client-side exception has occurred while loading the site (see the browser console for more information).";
const SERVER_SIDE =
  "Application error: a server-side exception has occurred while loading the site (see the server logs for more information).";

export function ApplicationError({ error, retry }: { error: unknown; retry?: () => void }) {
  const digest = digestOf(error);
  useEffect(() => {
    Sentry.captureException(error, digest ? { tags: { digest } } : undefined);
  }, [error, digest]);

  return (
    <StatusPage title={digest ? SERVER_SIDE : CLIENT_SIDE}>
      {digest && (
        <p>
          Digest: <code>{digest}</code>
        </p>
      )}
      <div style={actionRow}>
        {retry && (
          <button type="button" onClick={() => retry()}>
            Try again
          </button>
        )}
        {/* A full page load: after an error the client-side state is not to be trusted. */}
        <a href="/" style={linkStyle}>
          Go to the start page
        </a>
      </div>
    </StatusPage>
  );
}

function digestOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("digest" in error)) return undefined;
  return typeof error.digest === "string" && error.digest ? error.digest : undefined;
}

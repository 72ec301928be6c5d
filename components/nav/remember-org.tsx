"use client";

import { useEffect } from "react";
import { LAST_ORG_COOKIE } from "@/src/orgs/last-org";

/**
 * Remembers the organization last opened, so `/` returns to it (app/page.tsx). A preference,
 * not a grant: `/` checks membership before it follows the cookie.
 */
export function RememberOrg({ slug }: { slug: string }) {
  useEffect(() => {
    // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie, read by the server
    document.cookie = `${LAST_ORG_COOKIE}=${encodeURIComponent(slug)}; path=/; max-age=31536000; samesite=lax`;
  }, [slug]);
  return null;
}

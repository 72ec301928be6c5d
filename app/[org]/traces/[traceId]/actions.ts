"use server";

import { z } from "zod";
import { withOrg } from "@/src/auth/with-org";
import { getDb } from "@/src/db/connection";
import { loadSpanDetail, type SpanDetail } from "@/src/traces/detail";

const input = z.object({
  org: z.string().min(1).max(100),
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
});

/** The detail panel of the waterfall: one span's attributes, read when it is selected. */
export async function spanDetail(
  org: string,
  traceId: string,
  spanId: string,
): Promise<SpanDetail | null> {
  const parsed = input.safeParse({ org, traceId, spanId });
  if (!parsed.success) return null;
  const ctx = await withOrg(parsed.data.org, { need: "org.read" });
  return (
    (await loadSpanDetail(getDb(), ctx.org.slug, parsed.data.traceId, parsed.data.spanId)) ?? null
  );
}

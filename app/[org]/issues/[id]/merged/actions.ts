"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { z } from "zod";
import { clientIpFromHeaders } from "@/src/auth/client-ip";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { unmergeIssue } from "@/src/issues/bulk/unmerge";
import { issueIdSchema } from "@/src/issues/detail-schemas";

const UnmergeForm = z.object({ issueId: issueIdSchema });

/** Unmerge the ticked fingerprints (repeated `fingerprint` fields) into an issue of their own. */
export async function unmerge(_prev: ActionState, formData: FormData): Promise<ActionState> {
  const fingerprints = formData
    .getAll("fingerprint")
    .map(String)
    .filter((f) => /^[0-9a-f]{1,64}$/i.test(f));
  return runOrgAction(formData, "issues.write", UnmergeForm, async (ctx, { issueId }) => {
    if (fingerprints.length === 0)
      return { ok: false, message: "Tick the fingerprints to unmerge." };
    const ip = clientIpFromHeaders(await headers());
    const result = await unmergeIssue(
      getDb(),
      ctx.org.id,
      { userId: ctx.user.id, label: ctx.user.email, ip },
      issueId,
      fingerprints,
    );
    revalidatePath(`/${ctx.org.slug}/issues`, "layout");
    return {
      ok: true,
      message: `Moved ${result.events} ${result.events === 1 ? "event" : "events"} to issue ${result.issueId}.`,
    };
  });
}

"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { z } from "zod";
import { clientIpFromHeaders } from "@/src/auth/client-ip";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { unmergeIssue } from "@/src/issues/bulk/unmerge";
import { issueIdSchema } from "@/src/issues/detail-schemas";

const UnmergeForm = z.object({
  issueId: issueIdSchema,
  /** The ticked fingerprints (a list field); anything that is not one is ignored. */
  fingerprint: z
    .array(z.unknown())
    .transform((fs) =>
      fs.filter((f): f is string => typeof f === "string" && /^[0-9a-f]{1,64}$/i.test(f)),
    ),
});

/** Unmerge the ticked fingerprints into an issue of their own. */
export async function unmerge(_prev: ActionState, formData: FormData): Promise<ActionState> {
  const spec = {
    name: "unmerge",
    need: "issues.write",
    schema: UnmergeForm,
    lists: ["fingerprint"],
  } as const;
  return runOrgAction(formData, spec, async (ctx, { issueId, fingerprint: fingerprints }) => {
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

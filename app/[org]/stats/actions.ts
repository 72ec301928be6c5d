"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { replayOrgDeadLetters } from "@/src/stats/dead-letters";

/** Replays the organization's dead letters after a fix: admins and owners (projects.write). */
export async function replayDeadLettersAction(formData: FormData): Promise<void> {
  await runOrgAction(
    formData,
    { name: "replayDeadLettersAction", need: "projects.write", schema: z.object({}) },
    async (ctx) => {
      const result = await replayOrgDeadLetters(getDb(), ctx.org.id);
      revalidatePath(`/${ctx.org.slug}/stats`);
      return {
        ok: result.failed.length === 0,
        message: `Replayed ${result.replayed}, failed again ${result.failed.length}`,
      };
    },
  );
}

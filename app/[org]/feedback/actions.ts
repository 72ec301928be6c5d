"use server";

import { revalidatePath } from "next/cache";
import { notFound } from "next/navigation";
import { runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { feedbackStatusChange, setFeedbackStatus } from "@/src/feedback/inbox";

/**
 * Marks a report resolved, spam or open again. Members may (triage, like resolving an
 * issue); viewers only read. Another organization's feedback answers 404 and changes nothing.
 */
export async function changeFeedbackStatus(formData: FormData): Promise<void> {
  await runOrgAction(
    formData,
    { name: "changeFeedbackStatus", need: "issues.write", schema: feedbackStatusChange },
    async ({ org }, input) => {
      const changed = await setFeedbackStatus(getDb(), org.id, input.id, input.status);
      if (!changed) notFound();
      revalidatePath(`/${org.slug}/feedback`);
      return { ok: true, message: "Saved." };
    },
  );
}

"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { z } from "zod";
import { clientIpFromHeaders } from "@/src/auth/client-ip";
import { type ActionState, runOrgAction } from "@/src/auth/org-action";
import { getDb } from "@/src/db/connection";
import { BulkFormSchema, type BulkState, bulkNeed, runBulkForm } from "@/src/issues/bulk/form";
import {
  createSavedSearch,
  deleteSavedSearch,
  mayShareSearches,
  SavedSearchInput,
} from "@/src/issues/saved-searches";

/** The issue list's actions: bulk triage, and saved searches. */
export async function bulkIssues(_prev: BulkState, formData: FormData): Promise<BulkState> {
  let result: BulkState = null;
  // Ticked rows arrive as repeated `id` fields: the one list field.
  const spec = { name: "bulkIssues", need: bulkNeed, schema: BulkFormSchema, lists: ["id"] };
  await runOrgAction(formData, spec, async (ctx, input) => {
    const ip = clientIpFromHeaders(await headers());
    result = await runBulkForm(
      getDb(),
      ctx,
      { userId: ctx.user.id, label: ctx.user.email, ip },
      input,
    );
    if (result?.ok) revalidatePath(`/${ctx.org.slug}/issues`);
    return result;
  }).then((state) => {
    if (!result) result = state;
  });
  return result;
}

const SaveForm = z.object({
  name: z.string(),
  query: z.string(),
  shared: z.literal("on").optional(),
});

export async function saveSearch(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    {
      name: "saveSearch",
      // Anyone may keep a search for themselves; sharing it with everyone is a setting.
      need: (input) => (input.shared === "on" ? "org.write" : "org.read"),
      schema: SaveForm,
    },
    async (ctx, input) => {
      const parsed = SavedSearchInput.safeParse({ ...input, shared: input.shared === "on" });
      if (!parsed.success)
        return { ok: false, message: parsed.error.issues[0]?.message ?? "Invalid" };
      const saved = await createSavedSearch(
        getDb(),
        ctx.org.id,
        { userId: ctx.user.id, label: ctx.user.email, mayShare: mayShareSearches(ctx.role) },
        parsed.data,
      );
      revalidatePath(`/${ctx.org.slug}/issues`);
      return {
        ok: true,
        message: `Saved “${saved.name}”${saved.shared ? " for the organization" : ""}.`,
      };
    },
  );
}

const DeleteForm = z.object({ id: z.coerce.number().int().positive() });

export async function deleteSearch(_prev: ActionState, formData: FormData): Promise<ActionState> {
  return runOrgAction(
    formData,
    { name: "deleteSearch", need: "org.read", schema: DeleteForm },
    async (ctx, { id }) => {
      await deleteSavedSearch(
        getDb(),
        ctx.org.id,
        { userId: ctx.user.id, label: ctx.user.email, mayShare: mayShareSearches(ctx.role) },
        id,
      );
      revalidatePath(`/${ctx.org.slug}/issues`);
      return { ok: true, message: "Removed." };
    },
  );
}

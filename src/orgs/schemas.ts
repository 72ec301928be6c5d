import { z } from "zod";
import { ROLES } from "../auth/permissions";
import { slugFromName } from "../projects/platforms";
import { orgSlugSchema } from "./slug";

const role = z.enum(ROLES, "Choose a role");
const userId = z.string().min(1).max(100);

export const addMemberSchema = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email("Enter a valid email address")),
  role,
});

export const changeRoleSchema = z.object({ userId, role });

export const removeMemberSchema = z.object({ userId });

export const inviteSchema = addMemberSchema;
export const revokeInvitationSchema = z.object({
  invitationId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});
export const transferOwnershipSchema = z.object({ userId });
export const leaveSchema = z.object({});

/**
 * A new organization (the page's form and `POST /api/0/organizations/`): a name, and a slug
 * that defaults to one made from the name. Errors name their field.
 */
export const createOrgSchema = z
  .object({
    name: z
      .string("Name the organization")
      .trim()
      .min(1, "Name the organization")
      .max(100, "Keep the name under 100 characters"),
    slug: z.string().trim().max(100).optional(),
  })
  .transform((input, ctx) => {
    const slug = input.slug ? input.slug : slugFromName(input.name);
    const parsed = orgSlugSchema.safeParse(slug);
    if (!parsed.success) {
      ctx.addIssue({
        code: "custom",
        path: ["slug"],
        message: input.slug
          ? (parsed.error.issues[0]?.message ?? "Invalid slug")
          : "The name has no letters or digits to make a slug from; enter a slug",
      });
      return z.NEVER;
    }
    return { name: input.name, slug: parsed.data };
  });
export type CreateOrgInput = z.output<typeof createOrgSchema>;

import { z } from "zod";
import { ROLES } from "../auth/permissions";

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

import { z } from "zod";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../auth/auth";

export const acceptTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export const newAccountSchema = z.object({
  token: acceptTokenSchema,
  name: z.string().trim().min(1, "Enter your name").max(100),
  password: z
    .string()
    .min(MIN_PASSWORD_LENGTH, `Use at least ${MIN_PASSWORD_LENGTH} characters for the password`)
    .max(MAX_PASSWORD_LENGTH),
});

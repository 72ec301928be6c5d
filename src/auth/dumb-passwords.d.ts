// dumb-passwords ships no types; only its check is used (src/auth/password-policy.ts).
declare module "dumb-passwords" {
  const dumbPasswords: { check(password: string): boolean };
  export default dumbPasswords;
}

import { Button } from "@/components/ui/button";
import { signInWithSso } from "./actions";

/** The single sign-on way in: a work email, and the organization when a domain is shared. */
export function SsoSignIn({ next }: { next?: string }) {
  return (
    <form
      action={signInWithSso}
      aria-label="Sign in with SSO"
      className="mt-5 grid gap-2 border-t border-line pt-4"
    >
      <h2 className="text-sm font-semibold">Single sign-on</h2>
      {next && <input type="hidden" name="next" value={next} />}
      <label htmlFor="sso-email" className="font-medium">
        Work email
      </label>
      <input
        id="sso-email"
        name="email"
        type="email"
        required
        autoComplete="email"
        className="rounded border border-line bg-canvas px-2 py-1.5"
      />
      <details className="text-xs text-muted">
        <summary className="cursor-pointer">Several organizations use your domain?</summary>
        <label htmlFor="sso-org" className="mt-1 block">
          Organization (its short name in the address)
        </label>
        <input
          id="sso-org"
          name="org"
          maxLength={50}
          className="mt-1 rounded border border-line bg-canvas px-2 py-1 text-sm"
        />
      </details>
      <Button className="justify-self-start px-4">Sign in with SSO</Button>
    </form>
  );
}

const SSO_ERRORS: Record<string, string> = {
  email_domain_not_allowed:
    "Your organization's single sign-on does not admit that email address (its domain is not allowed).",
  account_in_other_organization:
    "An account with this email belongs to another organization too: sign in with its password.",
  state_mismatch: "The sign-in could not be matched to this browser. Start again.",
  state_not_found: "The sign-in had expired or was not started here. Start again.",
  invalid_state: "The sign-in could not be verified. Start again.",
  please_restart_the_process: "The sign-in could not be verified. Start again.",
  unable_to_get_user_info:
    "The identity provider's answer did not check out (its id token was not valid for this site).",
  invalid_code: "The identity provider did not confirm the sign-in. Start again.",
  issuer_mismatch: "The answer came from another identity provider than the one configured.",
  provider_not_found: "This organization has no single sign-on.",
  provider_unavailable: "The identity provider could not be reached. Try again later.",
  access_denied: "The sign-in was cancelled at the identity provider.",
  signup_disabled: "Your account could not be created.",
  account_not_linked:
    "An account with this email exists and could not be joined to your identity provider (it did not confirm the address).",
};

/** What a failed SSO sign-in says: the provider's or better-auth's code, mapped to words. */
export function ssoFailure(code: string | string[] | undefined): string {
  const value = typeof code === "string" && /^[a-z0-9_]{1,64}$/i.test(code) ? code : undefined;
  const known = value ? SSO_ERRORS[value] : undefined;
  return (
    known ?? `Single sign-on failed${value ? ` (${value})` : ""}. Start again, or ask an owner.`
  );
}

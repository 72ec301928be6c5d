import type { ReactNode } from "react";
import type { DataSettings } from "@/src/projects/data-settings";
import { ActionForm, type FormAction } from "./action-form";
import { inputClass } from "./styles";

/**
 * Data safety of a project: Sentry's Data Scrubber, safe and sensitive fields, IP scrubbing,
 * allowed domains, inbound filters and retention. One form: one save, one audit entry
 * listing what changed. Lists are one entry per line.
 */
function Check({
  name,
  checked,
  children,
}: {
  name: string;
  checked: boolean;
  children: ReactNode;
}) {
  return (
    <label className="flex items-start gap-2">
      <input type="checkbox" name={name} defaultChecked={checked} className="mt-0.5" />
      <span>{children}</span>
    </label>
  );
}

function Lines({
  name,
  label,
  hint,
  value,
  placeholder,
}: {
  name: string;
  label: string;
  hint: string;
  value: readonly string[];
  placeholder?: string;
}) {
  return (
    <label className="grid gap-0.5">
      <span className="text-xs font-medium">{label}</span>
      <textarea
        name={name}
        rows={Math.min(8, Math.max(2, value.length + 1))}
        defaultValue={value.join("\n")}
        placeholder={placeholder}
        spellCheck={false}
        className={`${inputClass} w-full max-w-xl font-mono text-xs`}
      />
      <span className="text-xs text-muted">{hint}</span>
    </label>
  );
}

export function DataSettingsForm({
  fields,
  settings,
  action,
}: {
  fields: { org: string; project: string };
  settings: DataSettings;
  action: FormAction;
}) {
  const f = settings.filters;
  return (
    <ActionForm action={action} fields={fields} submitLabel="Save data settings">
      <div className="grid basis-full gap-5 text-sm">
        <fieldset className="grid gap-2">
          <legend className="mb-1 font-semibold">Data scrubbing</legend>
          <Check name="scrubData" checked={settings.scrubData}>
            Scrub data on the server before it is stored
          </Check>
          <Check name="scrubDefaults" checked={settings.scrubDefaults}>
            Use the default scrubbers: values under keys like password, secret, token, auth,
            session, cookie or csrf; the Authorization, Cookie, Set-Cookie and X-Api-Key headers;
            card numbers, Bearer credentials, private keys, passwords in URLs and AWS keys in any
            string
          </Check>
          <Check name="scrubIpAddresses" checked={settings.scrubIpAddresses}>
            Scrub IP addresses (the user's address and REMOTE_ADDR)
          </Check>
          <Lines
            name="sensitiveFields"
            label="Additional sensitive fields"
            hint="A key containing any of these (case, - and _ ignored) has its value replaced by [Filtered]."
            value={settings.sensitiveFields}
            placeholder="customer_ref"
          />
          <Lines
            name="safeFields"
            label="Safe fields"
            hint="Never scrubbed: a key name anywhere (email), or a path from the event (request.headers.x-session-hint, extra.*.token, breadcrumbs.**.session)."
            value={settings.safeFields}
            placeholder="email"
          />
        </fieldset>
        <fieldset className="grid gap-2">
          <legend className="mb-1 font-semibold">Allowed domains</legend>
          <Lines
            name="allowedDomains"
            label="Pages that may send events with this project's DSN"
            hint="* for any; example.com, *.example.com, https://example.com:8443. An event from a browser page not listed is refused (403). Server SDKs send no origin and are not affected. An empty list refuses every page."
            value={settings.allowedDomains}
          />
        </fieldset>
        <fieldset className="grid gap-2">
          <legend className="mb-1 font-semibold">Inbound filters</legend>
          <p className="text-xs text-muted">
            A filtered event is not stored; it is counted in the stats as filtered, with the reason.
          </p>
          <Check name="filterBrowserExtensions" checked={f.browserExtensions}>
            Errors caused by browser extensions
          </Check>
          <Check name="filterLocalhost" checked={f.localhost}>
            Events from localhost (127.0.0.1, ::1, localhost URLs)
          </Check>
          <Check name="filterWebCrawlers" checked={f.webCrawlers}>
            Events from web crawlers (by user agent)
          </Check>
          <Check name="filterLegacyBrowsers" checked={f.legacyBrowsers}>
            Events from legacy browsers (IE before 10, Safari before 6, Opera before 15, Opera Mini
            before 8, Android's browser before 4)
          </Check>
          <Lines
            name="filterErrorMessages"
            label="Error messages"
            hint="Glob patterns over “Type: message” and the message: * any text, ? one character, [abc] a set. Case is ignored."
            value={f.errorMessages}
            placeholder="*ResizeObserver loop*"
          />
          <Lines
            name="filterReleases"
            label="Releases"
            hint="Glob patterns over the release."
            value={f.releases}
            placeholder="*-beta*"
          />
        </fieldset>
        <fieldset className="grid gap-2">
          <legend className="mb-1 font-semibold">Retention</legend>
          <label className="flex items-center gap-2">
            <input
              type="number"
              name="retentionDays"
              min={1}
              max={3650}
              required
              defaultValue={settings.retentionDays}
              className={`${inputClass} w-24`}
            />
            <span>days after an event arrived (events, spans, logs, issues, attachments)</span>
          </label>
        </fieldset>
      </div>
    </ActionForm>
  );
}

import { RATE_LIMIT_WINDOWS } from "@/src/projects/schemas";
import { Badge } from "../ui/badge";
import { CopyButton } from "../ui/copy-button";
import { RelativeTime } from "../ui/relative-time";
import { ActionForm, type FormAction } from "./action-form";
import { inputClass } from "./styles";

export interface KeyView {
  publicKey: string;
  label: string;
  dsn: string;
  enabled: boolean;
  createdAt: number;
  rateLimit: { window: number; count: number } | null;
}

export interface KeyActions {
  setEnabled: FormAction;
  remove: FormAction;
  setRateLimit: FormAction;
}

export function describeRateLimit(limit: KeyView["rateLimit"]): string {
  if (!limit) return "No rate limit";
  const known = RATE_LIMIT_WINDOWS.find((w) => w.seconds === limit.window);
  return `${limit.count.toLocaleString("en")} events ${known ? known.label : `per ${limit.window} s`}`;
}

/**
 * A project's DSN keys. Labels are user input and render as text. Without `actions` (a role
 * that may not change keys) the list is read-only.
 */
export function KeyList({
  keys,
  fields,
  actions,
}: {
  keys: KeyView[];
  /** Hidden fields naming the organization and project in every form. */
  fields: { org: string; project: string };
  actions?: KeyActions;
}) {
  if (keys.length === 0) return <p className="text-muted">This project has no DSN keys.</p>;
  const now = Date.now();
  return (
    <ul className="grid gap-3" aria-label="DSN keys">
      {keys.map((key) => {
        const keyFields = { ...fields, key: key.publicKey };
        return (
          <li
            key={key.publicKey}
            aria-label={`Key ${key.label}`}
            className="grid gap-2 rounded border border-line bg-surface p-3"
          >
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{key.label}</span>
              <Badge tone={key.enabled ? "ok" : "warning"}>
                {key.enabled ? "Enabled" : "Disabled"}
              </Badge>
              <span className="text-xs text-muted">
                created <RelativeTime ms={key.createdAt} now={now} />
              </span>
              <span className="text-xs text-muted">· {describeRateLimit(key.rateLimit)}</span>
            </div>
            <div className="flex items-center gap-2">
              <code
                data-testid="dsn"
                className="min-w-0 overflow-x-auto rounded border border-line bg-canvas px-2 py-1 font-mono text-xs whitespace-nowrap"
              >
                {key.dsn}
              </code>
              <CopyButton value={key.dsn} label={`Copy DSN of ${key.label}`} />
            </div>
            {actions && (
              <div className="flex flex-wrap items-start gap-6">
                <ActionForm
                  action={actions.setEnabled}
                  fields={{ ...keyFields, enabled: key.enabled ? "0" : "1" }}
                  submitLabel={key.enabled ? "Disable" : "Enable"}
                  submitAriaLabel={`${key.enabled ? "Disable" : "Enable"} key ${key.label}`}
                />
                <ActionForm
                  action={actions.setRateLimit}
                  fields={keyFields}
                  submitLabel="Set limit"
                  submitAriaLabel={`Set rate limit of key ${key.label}`}
                >
                  <label className="grid gap-0.5">
                    <span className="text-xs text-muted">Events (empty: no limit)</span>
                    <input
                      name="count"
                      inputMode="numeric"
                      pattern="[0-9]*"
                      defaultValue={key.rateLimit?.count ?? ""}
                      className={`${inputClass} w-28`}
                    />
                  </label>
                  <label className="grid gap-0.5">
                    <span className="text-xs text-muted">Window</span>
                    <select
                      name="window"
                      defaultValue={String(key.rateLimit?.window ?? 60)}
                      className={inputClass}
                    >
                      {RATE_LIMIT_WINDOWS.map((w) => (
                        <option key={w.seconds} value={w.seconds}>
                          {w.label}
                        </option>
                      ))}
                      {key.rateLimit &&
                        !RATE_LIMIT_WINDOWS.some((w) => w.seconds === key.rateLimit?.window) && (
                          <option value={key.rateLimit.window}>per {key.rateLimit.window} s</option>
                        )}
                    </select>
                  </label>
                </ActionForm>
                {/* Deleting cannot be undone: the button only appears after a deliberate click. */}
                <details className="group">
                  <summary className="cursor-pointer rounded border border-line px-2.5 py-1 text-sm text-danger hover:bg-raised">
                    Delete…
                  </summary>
                  <div className="mt-2 grid max-w-sm gap-2 text-xs">
                    <p>
                      SDKs still configured with this DSN will be refused at once. This cannot be
                      undone.
                    </p>
                    <ActionForm
                      action={actions.remove}
                      fields={keyFields}
                      variant="danger"
                      submitLabel="Delete key permanently"
                      submitAriaLabel={`Delete key ${key.label} permanently`}
                    />
                  </div>
                </details>
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}

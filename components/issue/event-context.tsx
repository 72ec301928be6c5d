import type { ReactNode } from "react";
import type { NormalizedEvent } from "@/src/events/types";
import { KeyValueTable } from "./value-text";

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} className="mb-5">
      <h2 className="mb-1.5 text-sm font-semibold">{title}</h2>
      {children}
    </section>
  );
}

/** Tags, user, request, contexts and SDK of one event, each only when the event has it. */
export function EventContext({ event }: { event: NormalizedEvent }) {
  const { user, request, sdk } = event;
  // A context with nothing in it (the SDK sends some empty) gets no heading either.
  const contexts = Object.entries(event.contexts)
    .map(([name, value]): [string, [string, unknown][]] => [
      name,
      value && typeof value === "object" && !Array.isArray(value)
        ? Object.entries(value)
        : [["value", value]],
    ])
    .filter(([, rows]) => rows.some(([, v]) => v !== undefined && v !== null && v !== ""));
  return (
    <>
      {event.tags.length > 0 && (
        <Section title="Tags">
          <KeyValueTable label="Event tags" rows={event.tags} />
        </Section>
      )}
      {user && (
        <Section title="User">
          <KeyValueTable
            label="User"
            rows={[
              ["id", user.id],
              ["email", user.email],
              ["username", user.username],
              ["name", user.name],
              ["ip_address", user.ip_address],
              ["geo", user.geo],
              ["data", user.data],
            ]}
          />
        </Section>
      )}
      {request && (
        <Section title="Request">
          <KeyValueTable
            label="Request"
            rows={[
              // The URL is shown, never linked: it is whatever the sender wrote.
              ["url", request.url],
              ["method", request.method],
              ["query", request.query_string],
              ["data", request.data],
              ["cookies", request.cookies],
              ["env", request.env],
              ...(request.headers ?? []).map(([k, v]): [string, unknown] => [`header ${k}`, v]),
            ]}
          />
        </Section>
      )}
      {event.extra && Object.keys(event.extra).length > 0 && (
        <Section title="Additional data">
          <KeyValueTable label="Additional data" rows={Object.entries(event.extra)} />
        </Section>
      )}
      {contexts.length > 0 && (
        <Section title="Contexts">
          {contexts.map(([name, rows]) => (
            <div key={name} className="mb-2">
              <h3 className="text-xs font-semibold break-all">{name}</h3>
              <KeyValueTable label={`Context ${name}`} rows={rows} />
            </div>
          ))}
        </Section>
      )}
      {sdk && (
        <Section title="SDK">
          <KeyValueTable
            label="SDK"
            rows={[
              ["name", sdk.name],
              ["version", sdk.version],
              ["integrations", sdk.integrations?.join(", ")],
              [
                "packages",
                sdk.packages?.map((p) => `${p.name ?? "?"}@${p.version ?? "?"}`).join(", "),
              ],
            ]}
          />
        </Section>
      )}
    </>
  );
}

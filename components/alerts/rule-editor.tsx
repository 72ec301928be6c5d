"use client";

import { startTransition, useActionState, useState } from "react";
import {
  ACTION,
  CONDITION,
  FILTER,
  FREQUENCIES,
  INTERVALS,
  LEVELS,
  MATCHES,
} from "@/src/alerts/rules/ids";
import type { RuleFormState } from "@/src/alerts/rules/ui";

type Item = Record<string, unknown> & { id: string };
export interface EditableRule {
  name: string;
  environment: string | null;
  actionMatch: string;
  filterMatch: string;
  frequency: number;
  conditions: Item[];
  filters: Item[];
  actions: Item[];
}

const CONDITIONS: [string, string, Item][] = [
  [CONDITION.firstSeen, "A new issue is created", { id: CONDITION.firstSeen }],
  [CONDITION.regression, "A resolved issue regresses", { id: CONDITION.regression }],
  [CONDITION.reappeared, "An ignored issue comes back", { id: CONDITION.reappeared }],
  [
    CONDITION.frequency,
    "The issue is seen more than N times in an interval",
    { id: CONDITION.frequency, value: 100, interval: "1h" },
  ],
  [
    CONDITION.uniqueUsers,
    "More than N users see the issue in an interval",
    { id: CONDITION.uniqueUsers, value: 10, interval: "1h" },
  ],
];
const FILTERS: [string, string, Item][] = [
  [FILTER.level, "Level", { id: FILTER.level, match: "gte", level: "40" }],
  [FILTER.tagged, "Tag", { id: FILTER.tagged, key: "", match: "eq", value: "" }],
  [
    FILTER.attribute,
    "Release",
    { id: FILTER.attribute, attribute: "release", match: "eq", value: "" },
  ],
  [FILTER.latestRelease, "The event is from the latest release", { id: FILTER.latestRelease }],
  [FILTER.age, "Issue age", { id: FILTER.age, comparison_type: "older", value: 1, time: "day" }],
  [FILTER.occurrences, "Issue seen at least N times", { id: FILTER.occurrences, value: 10 }],
];
const ACTIONS: [string, string, Item][] = [
  [ACTION.email, "Email", { id: ACTION.email, targetType: "AllMembers" }],
  [ACTION.slack, "Slack (incoming webhook)", { id: ACTION.slack, webhookUrl: "" }],
  [ACTION.discord, "Discord webhook", { id: ACTION.discord, webhookUrl: "" }],
  [ACTION.teams, "Microsoft Teams webhook", { id: ACTION.teams, webhookUrl: "" }],
  [ACTION.googleChat, "Google Chat webhook", { id: ACTION.googleChat, webhookUrl: "" }],
  [
    ACTION.slackCompatible,
    "Slack-compatible webhook",
    { id: ACTION.slackCompatible, webhookUrl: "" },
  ],
  [ACTION.webhook, "Webhook (signed, Sentry's legacy payload)", { id: ACTION.webhook, url: "" }],
];
const MATCH_WORDS: Record<string, string> = {
  eq: "equals",
  ne: "does not equal",
  co: "contains",
  nc: "does not contain",
  sw: "starts with",
  ew: "ends with",
  is: "is set",
  ns: "is not set",
};
const input = "rounded border border-line bg-canvas px-2 py-1";

function label(list: [string, string, Item][], id: string): string {
  return list.find(([i]) => i === id)?.[1] ?? id;
}

function FieldError({ errors, path }: { errors: Record<string, string>; path: string }) {
  const message = errors[path];
  if (!message) return null;
  return (
    <span role="alert" data-field={path} className="text-xs text-red-600 dark:text-red-400">
      {message}
    </span>
  );
}

export function RuleEditor({
  action,
  org,
  project,
  ruleId,
  initial,
  readOnly,
  smtpConfigured,
}: {
  action: (prev: RuleFormState, formData: FormData) => Promise<RuleFormState>;
  org: string;
  project: string;
  ruleId?: number;
  initial: EditableRule;
  readOnly: boolean;
  smtpConfigured: boolean;
}) {
  const [state, formAction, pending] = useActionState(action, null);
  const [rule, setRule] = useState<EditableRule>(initial);
  const errors = state?.fieldErrors ?? {};
  const set = (patch: Partial<EditableRule>) => setRule((r) => ({ ...r, ...patch }));
  const setItem = (list: "conditions" | "filters" | "actions", index: number, patch: object) =>
    setRule((r) => ({
      ...r,
      [list]: r[list].map((item, i) => (i === index ? { ...item, ...patch } : item)),
    }));
  const remove = (list: "conditions" | "filters" | "actions", index: number) =>
    setRule((r) => ({ ...r, [list]: r[list].filter((_, i) => i !== index) }));
  const add = (list: "conditions" | "filters" | "actions", item: Item | undefined) => {
    if (item) setRule((r) => ({ ...r, [list]: [...r[list], structuredClone(item)] }));
  };

  const numberField = (
    list: "conditions" | "filters",
    index: number,
    item: Item,
    key: string,
    text: string,
  ) => (
    <label className="grid gap-0.5">
      <span className="text-xs text-muted">{text}</span>
      <input
        type="number"
        min={0}
        className={`${input} w-28`}
        value={String(item[key] ?? "")}
        onChange={(e) => setItem(list, index, { [key]: e.target.value })}
      />
      <FieldError errors={errors} path={`${list}.${index}.${key}`} />
    </label>
  );
  const textField = (
    list: "filters" | "actions",
    index: number,
    item: Item,
    key: string,
    text: string,
    wide = false,
  ) => (
    <label className="grid gap-0.5">
      <span className="text-xs text-muted">{text}</span>
      <input
        type="text"
        className={`${input} ${wide ? "w-96" : "w-40"}`}
        value={String(item[key] ?? "")}
        onChange={(e) => setItem(list, index, { [key]: e.target.value })}
      />
      <FieldError errors={errors} path={`${list}.${index}.${key}`} />
    </label>
  );
  const selectField = (
    list: "conditions" | "filters" | "actions",
    index: number,
    item: Item,
    key: string,
    text: string,
    options: [string, string][],
  ) => (
    <label className="grid gap-0.5">
      <span className="text-xs text-muted">{text}</span>
      <select
        className={input}
        value={String(item[key] ?? "")}
        onChange={(e) => setItem(list, index, { [key]: e.target.value })}
      >
        {options.map(([value, words]) => (
          <option key={value} value={value}>
            {words}
          </option>
        ))}
      </select>
      <FieldError errors={errors} path={`${list}.${index}.${key}`} />
    </label>
  );
  const intervals = Object.keys(INTERVALS).map((k): [string, string] => [k, k]);
  const matches = MATCHES.map((m): [string, string] => [m, MATCH_WORDS[m] ?? m]);
  const levels = Object.entries(LEVELS).map(([name, n]): [string, string] => [String(n), name]);

  const row = (
    list: "conditions" | "filters" | "actions",
    index: number,
    title: string,
    body: React.ReactNode,
  ) => (
    <li
      key={`${list}-${index}`}
      className="flex flex-wrap items-end gap-3 border-b border-line py-2"
    >
      <span className="min-w-56 text-sm">{title}</span>
      {body}
      {!readOnly && (
        <button
          type="button"
          className="rounded border border-line px-2 py-0.5 text-xs hover:bg-raised"
          onClick={() => remove(list, index)}
          aria-label={`Remove ${title}`}
        >
          Remove
        </button>
      )}
    </li>
  );

  const adder = (list: "conditions" | "filters" | "actions", choices: [string, string, Item][]) =>
    readOnly ? null : <Adder list={list} choices={choices} onAdd={(item) => add(list, item)} />;

  return (
    <form
      // Submitted by hand: a form `action` is reset by React after it runs, which would show
      // selects at their first option while the rule keeps the chosen ones.
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        startTransition(() => formAction(data));
      }}
      className="grid max-w-5xl gap-4 text-sm"
    >
      <input type="hidden" name="org" value={org} />
      <input type="hidden" name="project" value={project} />
      {ruleId !== undefined && <input type="hidden" name="ruleId" value={ruleId} />}
      <input type="hidden" name="rule" value={JSON.stringify(rule)} />
      <fieldset disabled={readOnly || pending} className="grid gap-4">
        <div className="flex flex-wrap gap-4">
          <label className="grid gap-0.5">
            <span className="text-xs text-muted">Name</span>
            <input
              name="name"
              className={`${input} w-96`}
              value={rule.name}
              onChange={(e) => set({ name: e.target.value })}
            />
            <FieldError errors={errors} path="name" />
          </label>
          <label className="grid gap-0.5">
            <span className="text-xs text-muted">Environment (empty: all)</span>
            <input
              name="environment"
              className={`${input} w-48`}
              value={rule.environment ?? ""}
              onChange={(e) => set({ environment: e.target.value || null })}
            />
            <FieldError errors={errors} path="environment" />
          </label>
        </div>

        <section aria-labelledby="when">
          <h2 id="when" className="font-medium">
            When{" "}
            <select
              aria-label="Action match"
              className={input}
              value={rule.actionMatch}
              onChange={(e) => set({ actionMatch: e.target.value })}
            >
              <option value="all">all</option>
              <option value="any">any</option>
            </select>{" "}
            of these happen
          </h2>
          <FieldError errors={errors} path="conditions" />
          <ul>
            {rule.conditions.map((c, i) =>
              row(
                "conditions",
                i,
                label(CONDITIONS, c.id),
                "interval" in c ? (
                  <>
                    {numberField("conditions", i, c, "value", "More than")}
                    {selectField("conditions", i, c, "interval", "In", intervals)}
                  </>
                ) : (
                  <FieldError errors={errors} path={`conditions.${i}.id`} />
                ),
              ),
            )}
          </ul>
          {adder("conditions", CONDITIONS)}
        </section>

        <section aria-labelledby="if">
          <h2 id="if" className="font-medium">
            If{" "}
            <select
              aria-label="Filter match"
              className={input}
              value={rule.filterMatch}
              onChange={(e) => set({ filterMatch: e.target.value })}
            >
              <option value="all">all</option>
              <option value="any">any</option>
              <option value="none">none</option>
            </select>{" "}
            of these filters match
          </h2>
          <FieldError errors={errors} path="filters" />
          <ul>
            {rule.filters.map((f, i) =>
              row(
                "filters",
                i,
                label(FILTERS, f.id),
                <>
                  {f.id === FILTER.level && (
                    <>
                      {selectField("filters", i, f, "match", "Match", [
                        ["eq", "equal to"],
                        ["gte", "at least"],
                        ["lte", "at most"],
                      ])}
                      {selectField("filters", i, f, "level", "Level", levels)}
                    </>
                  )}
                  {f.id === FILTER.tagged && textField("filters", i, f, "key", "Tag")}
                  {(f.id === FILTER.tagged || f.id === FILTER.attribute) && (
                    <>
                      {selectField("filters", i, f, "match", "Match", matches)}
                      {textField("filters", i, f, "value", "Value")}
                    </>
                  )}
                  {f.id === FILTER.age && (
                    <>
                      {selectField("filters", i, f, "comparison_type", "Issue is", [
                        ["older", "older than"],
                        ["newer", "newer than"],
                      ])}
                      {numberField("filters", i, f, "value", "Amount")}
                      {selectField("filters", i, f, "time", "Unit", [
                        ["minute", "minutes"],
                        ["hour", "hours"],
                        ["day", "days"],
                        ["week", "weeks"],
                      ])}
                    </>
                  )}
                  {f.id === FILTER.occurrences && numberField("filters", i, f, "value", "Times")}
                </>,
              ),
            )}
          </ul>
          {adder("filters", FILTERS)}
        </section>

        <section aria-labelledby="then">
          <h2 id="then" className="font-medium">
            Then
          </h2>
          <FieldError errors={errors} path="actions" />
          <ul>
            {rule.actions.map((a, i) =>
              row(
                "actions",
                i,
                label(ACTIONS, a.id),
                <>
                  {a.id === ACTION.email && (
                    <>
                      {selectField("actions", i, a, "targetType", "To", [
                        ["AllMembers", "all members of the organization"],
                        ["Member", "one member (email)"],
                      ])}
                      {a.targetType === "Member" &&
                        textField("actions", i, a, "targetIdentifier", "Member email")}
                      {!smtpConfigured && (
                        <span className="text-xs text-muted">
                          Email is not configured (FAULTLINE_SMTP_URL): these wait until it is.
                        </span>
                      )}
                    </>
                  )}
                  {"webhookUrl" in a &&
                    textField("actions", i, a, "webhookUrl", "Webhook URL", true)}
                  {a.id === ACTION.webhook && textField("actions", i, a, "url", "URL", true)}
                </>,
              ),
            )}
          </ul>
          {adder("actions", ACTIONS)}
        </section>

        <label className="grid w-64 gap-0.5">
          <span className="text-xs text-muted">Act at most once per issue every</span>
          <select
            className={input}
            value={String(rule.frequency)}
            onChange={(e) => set({ frequency: Number(e.target.value) })}
          >
            {FREQUENCIES.map((m) => (
              <option key={m} value={m}>
                {m < 60 ? `${m} minutes` : m < 1440 ? `${m / 60} hours` : `${m / 1440} days`}
              </option>
            ))}
          </select>
          <FieldError errors={errors} path="frequency" />
        </label>
      </fieldset>
      {state && !state.ok && (
        <p role="alert" className="text-red-600 dark:text-red-400">
          {state.message}
        </p>
      )}
      {!readOnly && (
        <div>
          <button
            type="submit"
            disabled={pending}
            className="rounded border border-line bg-raised px-3 py-1 font-medium"
          >
            {ruleId === undefined ? "Create rule" : "Save rule"}
          </button>
        </div>
      )}
    </form>
  );
}

/** A choice of what to add and an Add button (a select that acts on change is hard to use by keyboard). */
function Adder({
  list,
  choices,
  onAdd,
}: {
  list: string;
  choices: [string, string, Item][];
  onAdd: (item: Item | undefined) => void;
}) {
  const [choice, setChoice] = useState(choices[0]?.[0] ?? "");
  return (
    <div className="mt-2 flex items-center gap-2 text-sm">
      <select
        className={input}
        value={choice}
        aria-label={`Add to ${list}`}
        onChange={(e) => setChoice(e.target.value)}
      >
        {choices.map(([id, words]) => (
          <option key={id} value={id}>
            {words}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="rounded border border-line px-2 py-0.5 text-xs hover:bg-raised"
        onClick={() => onAdd(choices.find(([id]) => id === choice)?.[2])}
      >
        Add {list === "conditions" ? "condition" : list === "filters" ? "filter" : "action"}
      </button>
    </div>
  );
}

"use client";

import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from "react";
import { fixedValues } from "@/src/issues/search/keys";
import {
  applySuggestion,
  HAS_KEYS,
  keySuggestions,
  type Suggestion,
  termAt,
  valueSuggestions,
  valuesFromServer,
} from "@/src/issues/search/suggest";

/**
 * The search field of the issue list: a combobox (WAI-ARIA 1.2) that suggests keys while a
 * term has no colon, and values after one — fixed ones for built-in keys, the members for
 * `assigned:`, and the stored tags' values from the API for tags and releases. ↓/↑ move
 * through the suggestions, Enter or Tab takes one, Escape closes the list; Enter without
 * one submits the form. Values are shown as text only.
 */
export function SearchBox({
  orgSlug,
  name,
  defaultValue,
  tagKeys,
  memberEmails,
  invalid,
  describedBy,
  onChange,
}: {
  orgSlug: string;
  name: string;
  defaultValue: string;
  tagKeys: string[];
  memberEmails: string[];
  invalid: boolean;
  describedBy?: string;
  onChange?: (value: string) => void;
}) {
  const id = useId();
  const listId = `${id}-suggestions`;
  const input = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState(defaultValue);
  const [caret, setCaret] = useState(defaultValue.length);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [remote, setRemote] = useState<{ key: string; prefix: string; values: string[] }>();

  const term = useMemo(() => termAt(value, caret), [value, caret]);

  // Values of tags, releases, environments and users come from the server, a moment after typing.
  useEffect(() => {
    if (!open || !term.key || !valuesFromServer(term.key)) return;
    const key = term.key.replace(/^tags\[(.*)\]$/, "$1");
    const prefix = term.valuePrefix;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      fetch(
        `/api/0/organizations/${encodeURIComponent(orgSlug)}/tags/${encodeURIComponent(key)}/values/?query=${encodeURIComponent(prefix)}`,
        { signal: controller.signal, headers: { accept: "application/json" } },
      )
        .then((res) => (res.ok ? res.json() : []))
        .then((rows: { value: string }[]) =>
          setRemote({ key: term.key as string, prefix, values: rows.map((r) => r.value) }),
        )
        .catch(() => undefined);
    }, 120);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [open, term.key, term.valuePrefix, orgSlug]);

  const suggestions: Suggestion[] = useMemo(() => {
    if (!open) return [];
    if (!term.key) return keySuggestions(term, tagKeys);
    let known: string[] = [];
    if (term.key === "has") known = [...HAS_KEYS, ...tagKeys];
    else if (term.key === "assigned" || term.key === "bookmarks") known = memberEmails;
    else if (remote?.key === term.key) known = remote.values;
    if (!fixedValues(term.key) && known.length === 0) return [];
    return valueSuggestions(term, known);
  }, [open, term, tagKeys, memberEmails, remote]);

  const activeId = active >= 0 && active < suggestions.length ? `${listId}-${active}` : undefined;

  function update(next: string, nextCaret: number) {
    setValue(next);
    setCaret(nextCaret);
    setActive(-1);
    onChange?.(next);
  }

  function take(s: Suggestion) {
    const next = applySuggestion(value, term, s);
    update(next.query, next.caret);
    setOpen(true);
    requestAnimationFrame(() => {
      input.current?.focus();
      input.current?.setSelectionRange(next.caret, next.caret);
    });
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!open) setOpen(true);
      const n = suggestions.length;
      if (n === 0) return;
      setActive((i) => (e.key === "ArrowDown" ? (i + 1) % n : (i <= 0 ? n : i) - 1));
      return;
    }
    if ((e.key === "Enter" || e.key === "Tab") && open && activeId) {
      e.preventDefault();
      take(suggestions[active] as Suggestion);
      return;
    }
    if (e.key === "Escape" && open) {
      e.preventDefault();
      setOpen(false);
      setActive(-1);
    }
  }

  return (
    <div className="relative">
      <input
        ref={input}
        id="issue-search"
        name={name}
        type="search"
        role="combobox"
        aria-label="Search issues"
        aria-autocomplete="list"
        aria-expanded={open && suggestions.length > 0}
        aria-controls={listId}
        aria-activedescendant={activeId}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        autoComplete="off"
        spellCheck={false}
        value={value}
        maxLength={2000}
        placeholder="is:unresolved level:error TypeError…"
        className="w-full rounded border border-line bg-canvas px-2 py-1 font-mono text-sm text-fg placeholder:text-muted aria-[invalid=true]:border-danger"
        onChange={(e) => {
          update(e.target.value, e.target.selectionStart ?? e.target.value.length);
          setOpen(true);
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart ?? value.length)}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
      />
      <div
        id={listId}
        role="listbox"
        aria-label="Suggestions"
        hidden={!open || suggestions.length === 0}
        className="absolute z-20 mt-1 max-h-72 w-full overflow-auto rounded border border-line bg-surface py-1 text-sm shadow-lg"
      >
        {suggestions.map((s, i) => (
          <div
            key={`${s.kind}:${s.insert}`}
            id={`${listId}-${i}`}
            role="option"
            // Reached through aria-activedescendant from the field, never by Tab.
            tabIndex={-1}
            aria-selected={i === active}
            className={`flex cursor-pointer justify-between gap-3 px-2 py-1 ${i === active ? "bg-raised" : ""}`}
            // Keeps the focus in the field (a click would blur it first and close the list).
            onMouseDown={(e) => {
              e.preventDefault();
              take(s);
            }}
          >
            <span className="truncate font-mono">{s.label}</span>
            {s.description && <span className="shrink-0 text-xs text-muted">{s.description}</span>}
          </div>
        ))}
      </div>
    </div>
  );
}

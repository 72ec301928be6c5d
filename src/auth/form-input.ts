/**
 * A submitted form as one plain object, the only way actions read their fields. A field the
 * action does not take as a list must arrive once: browsers never repeat a single-valued
 * field, and `FormData.get` (first value) and `Object.fromEntries` (last value) disagree about
 * a repeated one, which is how a check and an act came to read different values. So a repeat
 * is refused rather than resolved either way. List fields (ticked checkboxes) come back as
 * arrays, possibly empty.
 */
export type FormFields = Record<string, FormDataEntryValue | FormDataEntryValue[]>;

export type ReadForm = { ok: true; fields: FormFields } | { ok: false; repeated: string[] };

export function readForm(formData: FormData, lists: readonly string[] = []): ReadForm {
  // A Map, not an object: a field named `__proto__` must stay a field.
  const fields = new Map<string, FormDataEntryValue | FormDataEntryValue[]>(
    lists.map((name) => [name, []]),
  );
  const repeated = new Set<string>();
  for (const [name, value] of formData.entries()) {
    const seen = fields.get(name);
    if (lists.includes(name)) (seen as FormDataEntryValue[]).push(value);
    else if (seen !== undefined) repeated.add(name);
    else fields.set(name, value);
  }
  if (repeated.size > 0) return { ok: false, repeated: [...repeated] };
  return { ok: true, fields: Object.fromEntries(fields) };
}

/**
 * Fields of a refused form as the audit log keeps them: at most 20 fields of 10 values, each
 * cut short, a file by its name.
 */
export function auditedFields(
  fields: Iterable<[string, FormDataEntryValue | FormDataEntryValue[]]>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of [...fields].slice(0, 20)) {
    out[name.slice(0, 100)] = (Array.isArray(value) ? value : [value])
      .slice(0, 10)
      .map((v) => (typeof v === "string" ? v.slice(0, 200) : `[file ${v.name.slice(0, 100)}]`));
  }
  return out;
}

/** The message a form shows when it was refused for a repeated field. */
export function repeatedFieldMessage(repeated: readonly string[]): string {
  return `The form was refused: it sent ${repeated.map((n) => `“${n.slice(0, 100)}”`).join(", ")} more than once.`;
}

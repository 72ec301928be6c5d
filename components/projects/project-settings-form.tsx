import { knownPlatform, PLATFORM_LABELS, PLATFORMS } from "@/src/projects/schemas";
import { ActionForm, type FormAction } from "./action-form";
import { inputClass } from "./styles";

/** Name and platform of a project (its slug stays: DSNs and links use it). */
export function ProjectSettingsForm({
  fields,
  name,
  platform,
  action,
}: {
  fields: { org: string; project: string };
  name: string;
  platform: string | null;
  action: FormAction;
}) {
  const known = knownPlatform(platform);
  return (
    <ActionForm action={action} fields={fields} submitLabel="Save">
      <label className="grid gap-0.5">
        <span className="text-xs text-muted">Name</span>
        <input
          name="name"
          required
          maxLength={100}
          defaultValue={name}
          className={`${inputClass} w-64`}
        />
      </label>
      <label className="grid gap-0.5">
        <span className="text-xs text-muted">Platform</span>
        <select name="platform" defaultValue={known ?? "other"} className={inputClass}>
          {PLATFORMS.map((p) => (
            <option key={p} value={p}>
              {PLATFORM_LABELS[p]}
            </option>
          ))}
        </select>
      </label>
    </ActionForm>
  );
}

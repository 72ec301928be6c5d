"use client";

import { useActionState, useState } from "react";
import { PLATFORM_LABELS, PLATFORMS, slugFromName } from "@/src/projects/platforms";
import { Button } from "../ui/button";
import type { FormAction } from "./action-form";
import { inputClass } from "./styles";

/**
 * Name, optional slug (derived from the name as you type, shown as the placeholder) and
 * platform. The inputs are controlled so a refused submission (a taken slug) keeps them.
 */
export function CreateProjectForm({ org, action }: { org: string; action: FormAction }) {
  const [state, formAction, pending] = useActionState(action, null);
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [platform, setPlatform] = useState<string>("javascript-browser");
  return (
    <form
      action={formAction}
      aria-label="Create a project"
      className="grid max-w-3xl grid-cols-1 gap-3 sm:grid-cols-[1fr_1fr_auto_auto] sm:items-end"
    >
      <input type="hidden" name="org" value={org} />
      <label className="grid gap-1">
        <span className="text-xs text-muted">Name</span>
        <input
          name="name"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
          className={inputClass}
        />
      </label>
      <label className="grid gap-1">
        <span className="text-xs text-muted">Slug (optional)</span>
        <input
          name="slug"
          maxLength={50}
          value={slug}
          onChange={(e) => setSlug(e.target.value)}
          placeholder={slugFromName(name) || "derived from the name"}
          aria-describedby="new-project-slug-hint"
          className={`${inputClass} font-mono`}
        />
      </label>
      <label className="grid gap-1">
        <span className="text-xs text-muted">Platform</span>
        <select
          name="platform"
          value={platform}
          onChange={(e) => setPlatform(e.target.value)}
          className={inputClass}
        >
          {PLATFORMS.map((p) => (
            <option key={p} value={p}>
              {PLATFORM_LABELS[p]}
            </option>
          ))}
        </select>
      </label>
      <Button variant="primary" disabled={pending}>
        Create project
      </Button>
      <p id="new-project-slug-hint" className="text-xs text-muted sm:col-span-4">
        The slug names the project in URLs and the API: lowercase letters, digits and dashes.
      </p>
      {state && !state.ok && (
        <p role="alert" className="text-sm text-danger sm:col-span-4">
          {state.message}
        </p>
      )}
    </form>
  );
}

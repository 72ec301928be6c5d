"use client";

import { useEffect } from "react";

/**
 * `j`/`k` move the focus through the list's issue links; Enter then follows the focused link
 * (the browser's own behaviour, so Next's <Link> navigates client-side); `x` ticks the
 * focused row for a bulk action. Typing in a field, or with a modifier held, is left alone.
 */
export function ListKeys({ selector }: { selector: string }) {
  useEffect(() => {
    function onKeyDown(e: KeyboardEvent) {
      if (e.key !== "j" && e.key !== "k" && e.key !== "x") return;
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.isComposing) return;
      const target = e.target as HTMLElement | null;
      if (target?.isContentEditable || target?.closest("input, textarea, select")) return;
      if (e.key === "x") {
        const box = target?.closest("tr")?.querySelector<HTMLInputElement>("[data-issue-select]");
        if (!box) return;
        e.preventDefault();
        box.click();
        return;
      }
      const links = [...document.querySelectorAll<HTMLElement>(selector)];
      if (links.length === 0) return;
      const current = links.indexOf(document.activeElement as HTMLElement);
      const next =
        current === -1
          ? e.key === "j"
            ? 0
            : links.length - 1
          : Math.min(links.length - 1, Math.max(0, current + (e.key === "j" ? 1 : -1)));
      e.preventDefault();
      links[next]?.focus();
      links[next]?.scrollIntoView({ block: "nearest" });
    }
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [selector]);
  return null;
}

import type { ReactNode } from "react";
import type { MdNode } from "@/src/issues/markdown";

/**
 * A comment's Markdown tree (src/issues/markdown.ts) as React elements: text is always a
 * text node, links only carry hrefs that tree kept, and they open without referrer.
 */
export function Markdown({ nodes }: { nodes: MdNode[] }) {
  return <div className="markdown flex flex-col gap-2 break-words">{render(nodes)}</div>;
}

const CLASSES: Partial<Record<string, string>> = {
  h3: "text-base font-semibold",
  h4: "text-sm font-semibold",
  h5: "text-sm font-semibold",
  h6: "text-sm font-semibold",
  ul: "list-disc pl-5",
  ol: "list-decimal pl-5",
  blockquote: "border-l-2 border-line pl-3 text-muted",
  pre: "overflow-x-auto rounded border border-line bg-surface p-2 font-mono text-xs",
  code: "rounded bg-surface px-1 font-mono text-xs",
  table:
    "border-collapse text-xs [&_td]:border [&_td]:border-line [&_td]:px-2 [&_th]:border [&_th]:border-line [&_th]:px-2",
  hr: "border-line",
};

function render(nodes: MdNode[], inPre = false): ReactNode[] {
  return nodes.map((node, i) => {
    if (node.type === "text") return node.text;
    const key = i;
    const children = render(node.children, inPre || node.tag === "pre");
    const className = node.tag === "code" && inPre ? undefined : CLASSES[node.tag];
    switch (node.tag) {
      case "a":
        return (
          <a key={key} href={node.href} rel="noopener noreferrer nofollow ugc" target="_blank">
            {children}
          </a>
        );
      case "ol":
        return (
          <ol key={key} start={node.start} className={className}>
            {children}
          </ol>
        );
      case "br":
        return <br key={key} />;
      case "hr":
        return <hr key={key} className={className} />;
      default: {
        const Tag = node.tag;
        return (
          <Tag key={key} className={className}>
            {children}
          </Tag>
        );
      }
    }
  });
}

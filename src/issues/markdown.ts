import MarkdownIt, { type Token } from "markdown-it";

/**
 * Comments are Markdown (CommonMark with tables and strikethrough, by markdown-it) turned
 * into a small tree of allowed elements, which the page renders as React elements: no HTML
 * string ever reaches the browser. Raw HTML in a comment stays text, and a link is kept only
 * when it goes to http(s), mailto or a path on this site; an image becomes a link to it, so a
 * comment cannot make viewers' browsers fetch anything.
 */
export type MdTag =
  | "p"
  | "h3"
  | "h4"
  | "h5"
  | "h6"
  | "ul"
  | "ol"
  | "li"
  | "blockquote"
  | "pre"
  | "code"
  | "em"
  | "strong"
  | "s"
  | "a"
  | "hr"
  | "br"
  | "table"
  | "thead"
  | "tbody"
  | "tr"
  | "th"
  | "td";

export type MdNode =
  | { type: "text"; text: string }
  | { type: "element"; tag: MdTag; href?: string; start?: number; children: MdNode[] };

const md = new MarkdownIt("default", { html: false, linkify: true, typographer: false });

/** Headings inside a comment sit below the page's own: # becomes h3, and so on. */
const HEADING: Record<string, MdTag> = {
  h1: "h3",
  h2: "h4",
  h3: "h5",
  h4: "h6",
  h5: "h6",
  h6: "h6",
};

const CONTAINERS: Record<string, MdTag> = {
  bullet_list: "ul",
  ordered_list: "ol",
  list_item: "li",
  blockquote: "blockquote",
  table: "table",
  thead: "thead",
  tbody: "tbody",
  tr: "tr",
  th: "th",
  td: "td",
  strong: "strong",
  em: "em",
  s: "s",
};

export function safeHref(href: string | null | undefined): string | undefined {
  if (!href) return undefined;
  const trimmed = href.trim();
  if (trimmed.startsWith("/") && !trimmed.startsWith("//") && !trimmed.includes("\\"))
    return trimmed;
  if (trimmed.startsWith("#")) return trimmed;
  try {
    const url = new URL(trimmed);
    return ["http:", "https:", "mailto:"].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export function renderMarkdown(text: string): MdNode[] {
  const root: MdNode[] = [];
  const stack: MdNode[][] = [root];
  const top = () => stack[stack.length - 1] as MdNode[];
  const open = (tag: MdTag, extra: { href?: string; start?: number } = {}) => {
    const node: MdNode = { type: "element", tag, children: [], ...extra };
    top().push(node);
    stack.push(node.children);
  };
  const close = () => {
    if (stack.length > 1) stack.pop();
  };

  const walk = (tokens: Token[]) => {
    for (const token of tokens) {
      const base = token.type.replace(/_(open|close)$/, "");
      if (token.nesting === -1) {
        // A hidden paragraph (inside a tight list) and a refused link opened nothing.
        if (base === "paragraph" && token.hidden) continue;
        if (base === "link" && token.meta?.refused) continue;
        if (base === "paragraph" || base === "heading" || base === "link" || base in CONTAINERS)
          close();
        continue;
      }
      switch (token.type) {
        case "paragraph_open":
          if (!token.hidden) open("p");
          break;
        case "heading_open":
          open(HEADING[token.tag] ?? "h6");
          break;
        case "ordered_list_open": {
          const start = Number(token.attrGet("start") ?? 1);
          open("ol", Number.isSafeInteger(start) && start !== 1 ? { start } : {});
          break;
        }
        case "link_open": {
          const href = safeHref(String(token.attrGet("href") ?? ""));
          if (href) open("a", { href });
          else {
            // Its text stays; the matching close must not pop anything.
            token.meta = { refused: true };
            markRefusedClose(tokens, token);
          }
          break;
        }
        case "inline":
          walk(token.children ?? []);
          break;
        case "text":
          top().push({ type: "text", text: token.content });
          break;
        case "code_inline":
          top().push({
            type: "element",
            tag: "code",
            children: [{ type: "text", text: token.content }],
          });
          break;
        case "softbreak":
          top().push({ type: "text", text: "\n" });
          break;
        case "hardbreak":
          top().push({ type: "element", tag: "br", children: [] });
          break;
        case "hr":
          top().push({ type: "element", tag: "hr", children: [] });
          break;
        case "fence":
        case "code_block":
          top().push({
            type: "element",
            tag: "pre",
            children: [
              { type: "element", tag: "code", children: [{ type: "text", text: token.content }] },
            ],
          });
          break;
        case "image": {
          const href = safeHref(String(token.attrGet("src") ?? ""));
          const alt = token.content || "image";
          top().push(
            href
              ? { type: "element", tag: "a", href, children: [{ type: "text", text: alt }] }
              : { type: "text", text: alt },
          );
          break;
        }
        default: {
          const tag = CONTAINERS[base];
          if (tag && token.nesting === 1) open(tag);
          // Anything else (html_inline cannot occur with html: false) is dropped.
        }
      }
    }
  };
  walk(md.parse(text, {}));
  return root;
}

/** Marks the link_close that matches a refused link_open among its inline siblings. */
function markRefusedClose(tokens: Token[], openToken: Token): void {
  let depth = 0;
  for (let i = tokens.indexOf(openToken) + 1; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.type === "link_open") depth++;
    if (t.type === "link_close") {
      if (depth === 0) {
        t.meta = { refused: true };
        return;
      }
      depth--;
    }
  }
}

/** The text of a comment without its markup (for a notification, a title attribute). */
export function plainText(nodes: MdNode[]): string {
  return nodes.map((n) => (n.type === "text" ? n.text : plainText(n.children))).join("");
}

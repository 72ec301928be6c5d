import { describe, expect, it } from "vitest";
import { type MdNode, plainText, renderMarkdown, safeHref } from "./markdown";

function links(nodes: MdNode[]): string[] {
  return nodes.flatMap((n) =>
    n.type === "text" ? [] : [...(n.tag === "a" ? [n.href ?? ""] : []), ...links(n.children)],
  );
}
function tags(nodes: MdNode[]): string[] {
  return nodes.flatMap((n) => (n.type === "text" ? [] : [n.tag, ...tags(n.children)]));
}

describe("comment Markdown", () => {
  it("renders the usual elements", () => {
    const nodes = renderMarkdown(
      "# Title\n\nSome **bold**, _em_, ~~gone~~ and `code`.\n\n- one\n- two\n\n3. three\n\n> quoted\n\n```js\nconst a = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    );
    expect(tags(nodes)).toEqual(
      expect.arrayContaining([
        "h3",
        "p",
        "strong",
        "em",
        "s",
        "code",
        "ul",
        "li",
        "ol",
        "blockquote",
        "pre",
        "table",
        "th",
        "td",
      ]),
    );
    const ol = nodes.find((n) => n.type === "element" && n.tag === "ol");
    expect(ol && ol.type === "element" && ol.start).toBe(3);
    expect(plainText(nodes)).toContain("const a = 1;");
  });

  it("keeps raw HTML as text", () => {
    const nodes = renderMarkdown('<script>alert(1)</script> and <img src=x onerror="alert(1)">');
    expect(tags(nodes)).toEqual(["p"]);
    expect(plainText(nodes)).toBe('<script>alert(1)</script> and <img src=x onerror="alert(1)">');
    const block = renderMarkdown("<div onclick=alert(1)>\nhi\n</div>");
    expect(plainText(block)).toContain("<div onclick=alert(1)>");
    expect(tags(block)).not.toContain("div");
  });

  it("drops javascript:, data: and protocol-relative links but keeps their text", () => {
    const nodes = renderMarkdown(
      "[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](data:text/html,x) [d](//evil.example/) [e](vbscript:x) [**f** g](javascript:void(0)) after",
    );
    expect(links(nodes)).toEqual([]);
    // markdown-it leaves a link to a refused scheme as the literal text; ours refuses the rest.
    expect(plainText(nodes)).toBe(
      "[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](data:text/html,x) d [e](vbscript:x) [f g](javascript:void(0)) after",
    );
    expect(links(renderMarkdown("<javascript:alert(1)>"))).toEqual([]);
  });

  it("keeps http(s), mailto and same-site links, and turns images into links", () => {
    const nodes = renderMarkdown(
      "[site](https://example.com/a?b=1) [mail](mailto:a@example.com) [here](/acme/issues/3) https://auto.example/x ![diagram](https://img.example/d.png)",
    );
    expect(links(nodes)).toEqual([
      "https://example.com/a?b=1",
      "mailto:a@example.com",
      "/acme/issues/3",
      "https://auto.example/x",
      "https://img.example/d.png",
    ]);
    expect(plainText(nodes)).toContain("diagram");
  });

  it("judges hrefs", () => {
    expect(safeHref("https://x.example")).toBe("https://x.example/");
    expect(safeHref(" javascript:alert(1)")).toBeUndefined();
    expect(safeHref("/\\evil.example")).toBeUndefined();
    expect(safeHref("#frag")).toBe("#frag");
    expect(safeHref("ftp://x")).toBeUndefined();
  });
});

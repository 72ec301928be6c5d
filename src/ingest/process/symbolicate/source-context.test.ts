import { describe, expect, it } from "vitest";
import type { ParsedMap } from "./parse-map";
import { sourceContext } from "./source-context";

const SOURCE = `import { thing } from "x";

export class Cart {
  total(items: number[]): number {
    if (items.length === 0) {
      throw new Error("empty");
    }
    return items.reduce((a, b) => {
      return a + b;
    }, 0);
  }
}

export const load = async (id: string) => {
  const row = { id };
  return fetchRow(row);
};

function fetchRow(row: { id: string }): string {
  for (const k of Object.keys(row)) {
    console.log(k);
  }
  return row.id;
}
`;

function at(line: number, column: number) {
  const parsed: ParsedMap = {
    map: undefined as never,
    debugId: undefined,
    bytes: 0,
    lineStarts: [],
  };
  return sourceContext(parsed, 0, SOURCE, line, column);
}

describe("source context and the enclosing function", () => {
  it("gives five lines either side and the line itself", () => {
    const ctx = at(6, 6);
    expect(ctx?.context_line).toBe('      throw new Error("empty");');
    expect(ctx?.pre_context).toHaveLength(5);
    expect(ctx?.pre_context.at(-1)).toBe("    if (items.length === 0) {");
    expect(ctx?.post_context).toEqual([
      "    }",
      "    return items.reduce((a, b) => {",
      "      return a + b;",
      "    }, 0);",
      "  }",
    ]);
  });

  it("names a method through the blocks inside it", () => {
    expect(at(6, 6)?.scope).toBe("total");
  });

  it("leaves an anonymous callback's name to the caller", () => {
    expect(at(9, 6)?.scope).toBeUndefined();
  });

  it("names arrow functions assigned to a name, and function declarations", () => {
    expect(at(16, 2)?.scope).toBe("load");
    expect(at(21, 4)?.scope).toBe("fetchRow");
    expect(at(23, 2)?.scope).toBe("fetchRow");
  });

  it("is undefined at the top level and past the end", () => {
    expect(at(1, 0)?.scope).toBeUndefined();
    expect(at(999, 0)).toBeUndefined();
  });
});

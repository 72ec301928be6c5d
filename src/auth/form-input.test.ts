import { describe, expect, it } from "vitest";
import { auditedFields, readForm } from "./form-input";

function form(entries: [string, string][]): FormData {
  const f = new FormData();
  for (const [k, v] of entries) f.append(k, v);
  return f;
}

describe("readForm", () => {
  it("refuses a single-valued field sent twice, whichever value comes first", () => {
    for (const order of [
      ["resolve", "confirm:delete"],
      ["confirm:delete", "resolve"],
    ]) {
      const got = readForm(form(order.map((v) => ["action", v])), ["id"]);
      expect(got).toEqual({ ok: false, repeated: ["action"] });
    }
  });

  it("collects list fields as arrays, empty when absent", () => {
    expect(
      readForm(
        form([
          ["id", "1"],
          ["org", "acme"],
          ["id", "2"],
        ]),
        ["id", "x"],
      ),
    ).toEqual({
      ok: true,
      fields: { id: ["1", "2"], org: "acme", x: [] },
    });
  });

  it("keeps a field named __proto__ as a field", () => {
    const got = readForm(
      form([
        ["__proto__", "x"],
        ["constructor", "y"],
      ]),
    );
    expect(got.ok && Object.getOwnPropertyNames(got.fields)).toEqual(["__proto__", "constructor"]);
  });

  it("cuts what the audit log keeps", () => {
    const long = "a".repeat(1000);
    const got = auditedFields([[long, [long, ...Array(20).fill("v")]]]);
    const [name, values] = Object.entries(got)[0] as [string, string[]];
    expect(name).toHaveLength(100);
    expect(values).toHaveLength(10);
    expect(values[0]).toHaveLength(200);
  });
});

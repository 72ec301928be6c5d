import { describe, expect, it } from "vitest";
import { boundedJson, hexId, MAX_ATTRIBUTES_CHARS, plainAttributes, toMs } from "./trace-fields";

describe("span and log fields", () => {
  it("unwraps typed attributes and keeps plain ones", () => {
    const attrs = plainAttributes({
      a: { value: 3, type: "integer" },
      b: { value: ["x", "y"], type: "array" },
      c: "plain",
      d: { nested: { deeper: true } },
    });
    expect(attrs).toEqual({ a: 3, b: ["x", "y"], c: "plain", d: { nested: { deeper: true } } });
  });

  it("keeps a __proto__ key as data", () => {
    const attrs = plainAttributes(JSON.parse('{"__proto__": {"value": "x", "type": "string"}}'));
    expect(Object.getPrototypeOf(attrs)).toBe(Object.prototype);
    expect(JSON.parse(boundedJson(attrs) ?? "{}")).toEqual(JSON.parse('{"__proto__": "x"}'));
  });

  it("bounds the stored JSON, saying what was left out", () => {
    const many: Record<string, unknown> = {};
    for (let i = 0; i < 150; i++) many[`k${i}`] = { value: "v".repeat(4000), type: "string" };
    const json = boundedJson(plainAttributes(many)) ?? "";
    expect(json.length).toBeLessThanOrEqual(MAX_ATTRIBUTES_CHARS);
    expect(JSON.parse(json)["…"]).toBe("more attributes omitted");
    expect(boundedJson({})).toBeNull();
  });

  it("reads ids and times strictly", () => {
    expect(hexId("0B93D7A4-95E6-4691-88BE-B9AE7595B6C6", 32)).toBe(
      "0b93d7a495e6469188beb9ae7595b6c6",
    );
    expect(hexId("xyz", 16)).toBeUndefined();
    expect(hexId(12, 16)).toBeUndefined();
    expect(toMs(1795313546.5)).toBe(1795313546500);
    expect(toMs("2026-11-22T02:12:26.033Z")).toBe(Date.parse("2026-11-22T02:12:26.033Z"));
    expect(toMs("soon")).toBeUndefined();
    expect(toMs(-1)).toBeUndefined();
  });
});

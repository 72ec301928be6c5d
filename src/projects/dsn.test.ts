import { describe, expect, it } from "vitest";
import { parseDsn } from "./dsn";

describe("parseDsn", () => {
  it("reads the key and project of a DSN", () => {
    expect(parseDsn("http://0123abcd@localhost:3000/7")).toEqual({
      publicKey: "0123abcd",
      projectId: "7",
      host: "localhost:3000",
    });
  });

  it("answers null, never throws, for a key with a malformed percent escape", () => {
    expect(parseDsn("http://01%zzabcd@localhost:3000/7")).toBeNull();
    expect(parseDsn("http://01%@localhost:3000/7")).toBeNull();
  });
});

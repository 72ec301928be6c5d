import SqliteDatabase from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache";

describe("withStatementCache", () => {
  let sqlite: SqliteDatabase.Database;
  afterEach(() => sqlite?.open && sqlite.close());

  it("reuses a statement by its text and keeps only the most recently used", () => {
    sqlite = new SqliteDatabase(":memory:");
    const db = withStatementCache(sqlite, 2);
    const a = db.prepare("SELECT 1 AS n");
    expect(db.prepare("SELECT 1 AS n")).toBe(a);
    db.prepare("SELECT 2 AS n");
    db.prepare("SELECT 1 AS n"); // a is now the most recent
    db.prepare("SELECT 3 AS n"); // evicts "SELECT 2"
    expect(db.prepare("SELECT 1 AS n")).toBe(a);
    const b = db.prepare("SELECT 2 AS n");
    expect(db.prepare("SELECT 2 AS n")).toBe(b);
    expect(b.all([])).toEqual([{ n: 2 }]);
  });

  it("hands out a fresh statement while the cached one is being iterated", () => {
    sqlite = new SqliteDatabase(":memory:");
    const db = withStatementCache(sqlite);
    const sql = "SELECT value AS n FROM json_each('[1,2,3]')";
    const first = db.prepare(sql);
    const rows = first.iterate([]);
    rows.next();
    const second = db.prepare(sql);
    expect(second).not.toBe(first);
    expect(second.all([])).toHaveLength(3);
    expect([...rows]).toHaveLength(2);
    expect(db.prepare(sql)).toBe(first);
  });
});

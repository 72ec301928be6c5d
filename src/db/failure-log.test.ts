import { afterEach, expect, it, vi } from "vitest";
import { logDbFailure } from "./failure-log";

afterEach(() => {
  vi.restoreAllMocks();
});

it("logs a database that is away once per place and reason every few seconds, with the count", () => {
  const lines: unknown[][] = [];
  vi.spyOn(console, "error").mockImplementation((...args) => void lines.push(args));
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
    code: "ECONNREFUSED",
  });
  const t = 1_000_000;
  for (let i = 0; i < 100; i++) logDbFailure("[test] queue write failed", refused, t + i);
  logDbFailure("[test] backlog check failed", refused, t + 100);
  logDbFailure("[test] queue write failed", refused, t + 5000);
  expect(lines).toEqual([
    ["[test] queue write failed: connect ECONNREFUSED 127.0.0.1:5432"],
    ["[test] backlog check failed: connect ECONNREFUSED 127.0.0.1:5432"],
    [
      "[test] queue write failed: connect ECONNREFUSED 127.0.0.1:5432 (99 more like it since the last line)",
    ],
  ]);
});

it("logs any other error in full, every time", () => {
  const lines: unknown[][] = [];
  vi.spyOn(console, "error").mockImplementation((...args) => void lines.push(args));
  const bug = new TypeError("cannot read properties of undefined");
  logDbFailure("[test] tick failed", bug, 1);
  logDbFailure("[test] tick failed", bug, 2);
  expect(lines).toEqual([
    ["[test] tick failed", bug],
    ["[test] tick failed", bug],
  ]);
});

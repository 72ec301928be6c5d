import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit";

/** Settles once every callback so far has run: the write, then a turn for the callbacks. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("GroupCommit", () => {
  it("writes what arrives in one turn as one batch and calls each back once it is written", async () => {
    const batches: number[][] = [];
    const commits = new GroupCommit<number>(async (items) => {
      batches.push(items);
    });
    const calls: [number, unknown][] = [];
    for (const n of [1, 2, 3]) commits.push(n, (err) => calls.push([n, err]));
    const added = commits.add(4);
    expect(calls).toEqual([]); // nothing is called back before it is written
    await added;
    expect(batches).toEqual([[1, 2, 3, 4]]);
    expect(calls).toEqual([
      [1, null],
      [2, null],
      [3, null],
    ]);
    expect(commits.idle).toBe(true);
  });

  it("fails every item of a failed write, also for a falsy rejection, and writes the next batch", async () => {
    const failures: unknown[] = [new Error("EIO: i/o error, writev"), undefined];
    const written: number[][] = [];
    const commits = new GroupCommit<number>(async (items) => {
      if (failures.length > 0) throw failures.shift();
      written.push(items);
    });
    for (const failure of ["EIO: i/o error, writev", "the write failed"]) {
      const errors: unknown[] = [];
      commits.push(1, (err) => errors.push(err));
      commits.push(2, (err) => errors.push(err));
      const added = commits.add(3);
      await expect(added).rejects.toThrow(failure);
      expect(errors.map((e) => (e as Error).message)).toEqual([failure, failure]);
    }
    await commits.add(4);
    expect(written).toEqual([[4]]);
  });

  it("calls every item back when one callback throws", async () => {
    const commits = new GroupCommit<number>(async () => {});
    const called: number[] = [];
    const logged = console.error;
    console.error = () => {};
    try {
      commits.push(1, () => {
        called.push(1);
        throw new Error("a callback's own bug");
      });
      commits.push(2, () => called.push(2));
      await settle();
    } finally {
      console.error = logged;
    }
    expect(called).toEqual([1, 2]);
    expect(commits.idle).toBe(true);
  });
});

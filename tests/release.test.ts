import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROOT } from "./helpers/server";

/**
 * `npm run release -- <version>` (scripts/release.mjs) in a scratch repository holding this
 * repository's package.json, lockfile and CHANGELOG.md: it bumps both version fields, moves
 * "Unreleased" under the version with today's date, commits and tags; it refuses a version
 * that is not semantic or not above the current one, a dirty tree and an empty changelog.
 */
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Release Test",
  GIT_AUTHOR_EMAIL: "release@example.com",
  GIT_COMMITTER_NAME: "Release Test",
  GIT_COMMITTER_EMAIL: "release@example.com",
};
const current = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).version;
const [major, minor] = current.split(".").map(Number);
const next = `${major}.${minor + 1}.0`;

let repo: string;
const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: repo, env: GIT_ENV, encoding: "utf8" }).trim();
const release = (...args: string[]) => {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/release.mjs"), ...args], {
    cwd: repo,
    env: GIT_ENV,
    encoding: "utf8",
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
};
const read = (file: string) => fs.readFileSync(path.join(repo, file), "utf8");
const writeChangelog = (unreleased: string) =>
  fs.writeFileSync(
    path.join(repo, "CHANGELOG.md"),
    read("CHANGELOG.md").replace(/## \[Unreleased\]\n/, `## [Unreleased]\n\n${unreleased}\n`),
  );

beforeEach(() => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-release-"));
  for (const file of ["package.json", "package-lock.json", "CHANGELOG.md"])
    fs.copyFileSync(path.join(ROOT, file), path.join(repo, file));
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "start");
});

afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

describe("npm run release", () => {
  it("bumps package.json and the lockfile, moves Unreleased under the version, commits and tags", () => {
    writeChangelog("### Added\n\n- A thing worth releasing.");
    git("commit", "-qam", "notes");
    const r = release(next);
    expect(r.status, r.out).toBe(0);
    expect(JSON.parse(read("package.json")).version).toBe(next);
    const lock = JSON.parse(read("package-lock.json"));
    expect([lock.version, lock.packages[""].version]).toEqual([next, next]);
    const today = new Date().toISOString().slice(0, 10);
    const changelog = read("CHANGELOG.md");
    expect(changelog).toContain(
      `## [Unreleased]\n\n## [${next}] - ${today}\n\n### Added\n\n- A thing worth releasing.\n\n## [${current}]`,
    );
    expect(git("status", "--porcelain")).toBe("");
    expect(git("log", "-1", "--format=%s")).toBe(`Release ${next}`);
    expect(git("describe", "--exact-match", "--tags")).toBe(`v${next}`);
    // Only those three files changed.
    expect(git("diff", "--name-only", "HEAD~1").split("\n").sort()).toEqual([
      "CHANGELOG.md",
      "package-lock.json",
      "package.json",
    ]);
  });

  it.each([
    ["1.2", "not a semantic version"],
    ["1.2.3.4", "not a semantic version"],
    ["01.2.3", "not a semantic version"],
    [current, `is not above the current version ${current}`],
    [`${major}.${minor}.0-rc.1`, "is not above the current version"],
    ["0.0.9", "is not above the current version"],
  ])("refuses %s", (version, message) => {
    writeChangelog("- Something.");
    git("commit", "-qam", "notes");
    const r = release(version);
    expect(r.status).toBe(1);
    expect(r.out).toContain(message);
    expect(JSON.parse(read("package.json")).version).toBe(current);
    expect(git("tag", "--list")).toBe("");
  });

  it("refuses a dirty tree and an empty Unreleased section, changing nothing", () => {
    const empty = release(next);
    expect(empty.status).toBe(1);
    expect(empty.out).toContain('"Unreleased" section is empty');
    writeChangelog("- Something.");
    const dirty = release(next);
    expect(dirty.status).toBe(1);
    expect(dirty.out).toContain("uncommitted changes");
    expect(JSON.parse(read("package.json")).version).toBe(current);
    expect(git("tag", "--list")).toBe("");
    expect(git("log", "--format=%s")).toBe("start");
  });

  it("orders pre-releases below their release", () => {
    writeChangelog("- Something.");
    git("commit", "-qam", "notes");
    expect(release(`${next}-rc.1`).status).toBe(0);
    writeChangelog("- More.");
    git("commit", "-qam", "more notes");
    const rc2 = release(`${next}-rc.2`);
    expect(rc2.status, rc2.out).toBe(0);
    writeChangelog("- Final.");
    git("commit", "-qam", "final notes");
    expect(release(`${next}-rc.1`).status).toBe(1);
    const final = release(next);
    expect(final.status, final.out).toBe(0);
    expect(git("tag", "--list").split("\n")).toEqual([
      `v${next}`,
      `v${next}-rc.1`,
      `v${next}-rc.2`,
    ]);
  });
});

// `npm run release -- <version>`: makes a release commit and its tag. It sets the version in
// package.json and package-lock.json, moves CHANGELOG.md's "Unreleased" section under the new
// version with today's date (UTC), commits and tags `v<version>`. It refuses a version that is
// not semantic or not above the current one, a dirty tree and an empty "Unreleased" section, so
// a release always says what it changed. See CONTRIBUTING.md ("Making a release").
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

// semver.org's grammar: MAJOR.MINOR.PATCH, an optional pre-release, an optional build.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const UNRELEASED = /^## \[Unreleased\][^\n]*\n/m;

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

function parse(version) {
  const m = SEMVER.exec(version);
  if (!m) return undefined;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split(".") : [] };
}

/** Semantic-version precedence (semver.org §11): <0, 0 or >0. Build metadata is ignored. */
function compareVersions(a, b) {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) throw new Error(`not a semantic version: ${x ? b : a}`);
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i] - y.core[i];
  // A pre-release sorts before its release; otherwise compare identifier by identifier.
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.min(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.pre.length - y.pre.length;
}

function git(cwd, ...args) {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

function main() {
  const root = process.cwd();
  const version = process.argv[2]?.replace(/^v/, "");
  if (!version) fail("usage: npm run release -- <version>   (e.g. 0.3.0)");
  if (!parse(version)) fail(`"${version}" is not a semantic version (MAJOR.MINOR.PATCH)`);

  const pkgFile = path.join(root, "package.json");
  const lockFile = path.join(root, "package-lock.json");
  const changelogFile = path.join(root, "CHANGELOG.md");
  const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8"));
  if (compareVersions(version, pkg.version) <= 0)
    fail(`${version} is not above the current version ${pkg.version}`);
  if (git(root, "status", "--porcelain") !== "")
    fail("the working tree has uncommitted changes: commit or stash them first");
  if (git(root, "tag", "--list", `v${version}`) !== "") fail(`tag v${version} already exists`);

  const changelog = fs.readFileSync(changelogFile, "utf8");
  const head = UNRELEASED.exec(changelog);
  if (!head) fail('CHANGELOG.md has no "## [Unreleased]" section');
  const start = head.index + head[0].length;
  const next = changelog.slice(start).search(/^## \[/m);
  const end = next === -1 ? changelog.length : start + next;
  const notes = changelog.slice(start, end).trim();
  if (notes === "")
    fail('CHANGELOG.md\'s "Unreleased" section is empty: say what this release changes');

  const today = new Date().toISOString().slice(0, 10);
  fs.writeFileSync(
    changelogFile,
    `${changelog.slice(0, start)}\n## [${version}] - ${today}\n\n${notes}\n\n${changelog.slice(end)}`,
  );
  pkg.version = version;
  writeJson(pkgFile, pkg);
  if (fs.existsSync(lockFile)) {
    const lock = JSON.parse(fs.readFileSync(lockFile, "utf8"));
    lock.version = version;
    if (lock.packages?.[""]) lock.packages[""].version = version;
    writeJson(lockFile, lock);
  }

  git(root, "add", "package.json", "CHANGELOG.md", ...(fs.existsSync(lockFile) ? [lockFile] : []));
  git(root, "commit", "-q", "-m", `Release ${version}`);
  git(root, "tag", "-a", `v${version}`, "-m", `Faultline ${version}`);
  console.log(
    `released ${version}: commit ${git(root, "rev-parse", "--short", "HEAD")}, tag v${version}`,
  );
  console.log(
    `next: make its upgrade fixture (CONTRIBUTING.md, "Upgrade fixtures") and push with --follow-tags`,
  );
}

main();

// The npm registry reachable here serves only linux-x64 builds of platform packages, so
// `npm install` cannot record the other platforms' optional dependencies in the lockfile,
// and `npm ci` then refuses the lockfile as out of sync. This drops the optional-dependency
// edges whose package the lockfile does not hold. Run it after `npm install` changes the lock.
import fs from "node:fs";

const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
let removed = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  if (!entry.optionalDependencies) continue;
  for (const dep of Object.keys(entry.optionalDependencies)) {
    // Resolution walks up from the dependent's own node_modules to the root.
    const parts = location ? location.split("/node_modules/") : [];
    let found = false;
    for (let depth = parts.length; depth >= 0 && !found; depth--) {
      const prefix = parts.slice(0, depth).join("/node_modules/");
      found = Boolean(lock.packages[`${prefix ? `${prefix}/` : ""}node_modules/${dep}`]);
    }
    if (!found) {
      delete entry.optionalDependencies[dep];
      removed++;
    }
  }
}
fs.writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  `prune-lockfile: removed ${removed} optional dependencies this registry does not serve`,
);

import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { actionId, actionRedirect, Client } from "./auth/http-client";
import { ROOT, type RunningServer, startServer } from "./helpers/server";

/**
 * One version everywhere (issue 40): package.json's, in the server's first log line, in
 * `GET /api/0/` and at the foot of the organization sidebar, on the built server.
 */
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
const OWNER = { name: "Vera Version", email: "vera@example.com", password: "version password 1" };

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

it("package.json and the lockfile name one semantic version", () => {
  expect(pkg.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  expect([lock.version, lock.packages[""].version]).toEqual([pkg.version, pkg.version]);
  expect(pkg.license).toBe("Apache-2.0");
});

it("shows the same version in the log, the API and the UI", async () => {
  const firstLine = server.logs().split("\n")[0];
  expect(firstLine).toMatch(
    new RegExp(`^Faultline ${pkg.version.replaceAll(".", "\\.")} starting`),
  );

  const root = await server.api<{ version: string; faultline: { version: string } }>("/api/0/");
  expect(root.status).toBe(200);
  // Sentry's API version stays what clients expect; the server's own is beside it.
  expect(root.body.version).toBe("0");
  expect(root.body.faultline.version).toBe(pkg.version);

  const owner = new Client(server.url);
  await owner.action("/setup", actionId("app/(auth)/setup/actions.ts", "setUp"), {
    ...OWNER,
    orgName: "Acme",
    orgSlug: "acme",
  });
  const signedIn = await owner.action(
    "/sign-in",
    actionId("app/(auth)/sign-in/actions.ts", "signIn"),
    OWNER,
  );
  expect(actionRedirect(signedIn)).toBe("/acme");
  const page = await owner.get("/acme/issues");
  expect(page.status).toBe(200);
  const shown = /data-testid="faultline-version"[^>]*>([^<]+)</.exec(page.body)?.[1];
  expect(shown).toBe(pkg.version);
}, 60_000);

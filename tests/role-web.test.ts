import { afterAll, expect, it } from "vitest";
import { type RunningServer, startServer } from "./helpers/server";

/**
 * Role `web` runs Next in its main thread (server.ts), not in a web thread as role `all`
 * does: the same request handling (src/server/web-handler.ts) on the other path.
 */
let server: RunningServer | undefined;
afterAll(async () => {
  await server?.stop();
});

it("role web serves the app and its API from the main thread, and no ingest", async () => {
  server = await startServer({ env: { FAULTLINE_ROLE: "web" } });
  const health = await fetch(`${server.url}/healthz`);
  expect(await health.json()).toEqual({ ok: true, role: "web" });

  // Sentry's trailing slash is served, not redirected (web-handler.ts).
  const keys = await server.api<{ public: string }[]>("/api/0/projects/default/default/keys/");
  expect(keys.status).toBe(200);
  expect(keys.body[0]?.public).toMatch(/^[0-9a-f]{32}$/);

  const page = await fetch(`${server.url}/sign-in`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("<html");

  // A server action posted from another site is refused before Next sees it.
  const action = await fetch(`${server.url}/sign-in`, {
    method: "POST",
    headers: { "next-action": "0123456789abcdef", origin: "https://attacker.example" },
    body: "[]",
  });
  expect(action.status).toBe(403);

  const key = keys.body[0]?.public ?? "";
  const ingest = await fetch(`${server.url}/api/1/envelope/?sentry_key=${key}`, {
    method: "POST",
    body: '{"event_id":"0123456789abcdef0123456789abcdef"}\n{"type":"event"}\n{"message":"x"}\n',
  });
  expect(ingest.status).toBe(404);

  expect(await server.stop()).toBe(0);
  server = undefined;
}, 90_000);

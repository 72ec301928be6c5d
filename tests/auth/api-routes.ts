import type { Scope } from "../../src/auth/permissions";

/**
 * Every `/api/0/` route, for the token matrix (token-matrix.ts). A branch that adds a route
 * appends a row here; token-matrix checks the table against app/api/0/**\/route.ts, so a route
 * without a row fails the test.
 *
 * Placeholders: {org} {project} {issue} {event} {trace}, filled with objects that exist in the
 * organization under test. `ok` is what an allowed call answers; writes carry a body or an id
 * that changes nothing (an unknown id, an invalid field), so the matrix can run them all.
 * `need` is the route's declared scope; "any" means any valid credential, "session" a
 * signed-in browser only.
 */
export type RouteNeed = Scope | "any" | "session";

export interface ApiRouteCase {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  need: RouteNeed;
  ok: number[];
  body?: unknown;
  /** The path names no organization or object of one: "another organization" does not apply. */
  orgless?: boolean;
}

const UNKNOWN = 987654321;

export const API_ROUTES: ApiRouteCase[] = [
  { method: "GET", path: "/api/0/", need: "any", ok: [200], orgless: true },
  { method: "GET", path: "/api/0/api-tokens/", need: "session", ok: [200], orgless: true },
  {
    method: "POST",
    path: "/api/0/api-tokens/",
    need: "session",
    ok: [400],
    body: { scopes: ["org:nope"] },
    orgless: true,
  },
  {
    method: "DELETE",
    path: "/api/0/api-tokens/",
    need: "session",
    ok: [404],
    body: { tokenId: UNKNOWN },
    orgless: true,
  },
  // Issues by id
  { method: "GET", path: "/api/0/issues/{issue}/", need: "event:read", ok: [200] },
  { method: "GET", path: "/api/0/issues/{issue}/events/", need: "event:read", ok: [200] },
  { method: "GET", path: "/api/0/issues/{issue}/events/latest/", need: "event:read", ok: [200] },
  { method: "GET", path: "/api/0/issues/{issue}/hashes/", need: "event:read", ok: [200] },
  {
    method: "DELETE",
    path: `/api/0/issues/{issue}/hashes/?id=${"f".repeat(32)}`,
    need: "event:write",
    ok: [400],
  },
  { method: "GET", path: "/api/0/issues/{issue}/activities/", need: "event:read", ok: [200] },
  { method: "GET", path: "/api/0/issues/{issue}/comments/", need: "event:read", ok: [200] },
  {
    method: "POST",
    path: "/api/0/issues/{issue}/comments/",
    need: "event:write",
    ok: [400],
    body: { text: "" },
  },
  {
    method: "PUT",
    path: `/api/0/issues/{issue}/comments/${UNKNOWN}/`,
    need: "event:write",
    ok: [404],
    body: { text: "edited" },
  },
  {
    method: "DELETE",
    path: `/api/0/issues/{issue}/comments/${UNKNOWN}/`,
    need: "event:write",
    ok: [404],
  },
  // Organizations
  // The caller's own organizations: any credential lists just those (a token: its own one).
  { method: "GET", path: "/api/0/organizations/", need: "any", ok: [200], orgless: true },
  {
    method: "POST",
    path: "/api/0/organizations/",
    need: "org:write",
    ok: [400],
    body: { name: "" },
    orgless: true,
  },
  { method: "GET", path: "/api/0/organizations/{org}/", need: "org:read", ok: [200] },
  { method: "GET", path: "/api/0/organizations/{org}/projects/", need: "project:read", ok: [200] },
  // The default team is named after the organization's slug.
  {
    method: "POST",
    path: "/api/0/teams/{org}/{org}/projects/",
    need: "project:write",
    ok: [400],
    body: { name: "" },
  },
  { method: "GET", path: "/api/0/organizations/{org}/audit-logs/", need: "org:write", ok: [200] },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/events-trace/{trace}/",
    need: "event:read",
    ok: [200],
  },
  { method: "GET", path: "/api/0/organizations/{org}/issues/", need: "event:read", ok: [200] },
  {
    method: "PUT",
    path: `/api/0/organizations/{org}/issues/?id=${UNKNOWN}`,
    need: "event:write",
    ok: [400],
    body: { status: "nope" },
  },
  {
    method: "DELETE",
    path: `/api/0/organizations/{org}/issues/?id=${UNKNOWN}`,
    need: "event:admin",
    ok: [204],
  },
  { method: "GET", path: "/api/0/organizations/{org}/logs/", need: "event:read", ok: [200] },
  { method: "GET", path: "/api/0/organizations/{org}/monitors/", need: "org:read", ok: [200] },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/monitors/no-such-monitor/checkins/",
    need: "org:read",
    ok: [404],
  },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/releases/no-such-release/",
    need: "project:read",
    ok: [404],
  },
  { method: "GET", path: "/api/0/organizations/{org}/searches/", need: "org:read", ok: [200] },
  {
    method: "POST",
    path: "/api/0/organizations/{org}/searches/",
    need: "org:read",
    ok: [400],
    body: {},
  },
  {
    method: "DELETE",
    path: `/api/0/organizations/{org}/searches/${UNKNOWN}/`,
    need: "org:read",
    ok: [404],
  },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/stats_v2/?field=sum(quantity)&groupBy=outcome",
    need: "org:read",
    ok: [200],
  },
  { method: "GET", path: "/api/0/organizations/{org}/tags/", need: "event:read", ok: [200] },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/tags/level/values/",
    need: "event:read",
    ok: [200],
  },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/org-auth-tokens/",
    need: "org:read",
    ok: [200],
  },
  {
    method: "POST",
    path: "/api/0/organizations/{org}/org-auth-tokens/",
    need: "org:write",
    ok: [400],
    body: { name: "" },
  },
  {
    method: "DELETE",
    path: `/api/0/organizations/{org}/org-auth-tokens/${UNKNOWN}/`,
    need: "org:write",
    ok: [404],
  },
  // Projects
  {
    method: "GET",
    path: "/api/0/projects/{org}/{project}/events/{event}/attachments/",
    need: "event:read",
    ok: [200],
  },
  {
    method: "GET",
    path: `/api/0/projects/{org}/{project}/events/{event}/attachments/${UNKNOWN}/`,
    need: "event:read",
    ok: [404],
  },
  { method: "GET", path: "/api/0/projects/{org}/{project}/issues/", need: "event:read", ok: [200] },
  {
    method: "PUT",
    path: `/api/0/projects/{org}/{project}/issues/?id=${UNKNOWN}`,
    need: "event:write",
    ok: [400],
    body: { status: "nope" },
  },
  {
    method: "DELETE",
    path: `/api/0/projects/{org}/{project}/issues/?id=${UNKNOWN}`,
    need: "event:admin",
    ok: [204],
  },
  { method: "GET", path: "/api/0/projects/{org}/{project}/keys/", need: "project:read", ok: [200] },
  {
    method: "PUT",
    path: `/api/0/projects/{org}/{project}/keys/${"0".repeat(32)}/`,
    need: "project:write",
    ok: [404],
    body: { isActive: "not a boolean" },
  },
  {
    method: "GET",
    path: "/api/0/projects/{org}/{project}/tombstones/",
    need: "project:read",
    ok: [200],
  },
  {
    method: "DELETE",
    path: `/api/0/projects/{org}/{project}/tombstones/${UNKNOWN}/`,
    need: "event:admin",
    ok: [404],
  },
  {
    method: "GET",
    path: "/api/0/projects/{org}/{project}/user-feedback/",
    need: "event:read",
    ok: [200],
  },
  // Uploads and releases as sentry-cli calls them (issue-20-uploads).
  {
    method: "GET",
    path: "/api/0/organizations/{org}/chunk-upload/",
    need: "project:releases",
    ok: [200],
  },
  {
    method: "POST",
    path: "/api/0/organizations/{org}/chunk-upload/",
    need: "project:releases",
    ok: [400],
    body: {},
  },
  {
    method: "POST",
    path: "/api/0/organizations/{org}/artifactbundle/assemble/",
    need: "project:releases",
    ok: [400],
    body: {},
  },
  {
    method: "POST",
    path: "/api/0/organizations/{org}/releases/",
    need: "project:releases",
    ok: [400],
    body: {},
  },
  {
    method: "PUT",
    path: "/api/0/organizations/{org}/releases/no-such-release/",
    need: "project:releases",
    ok: [404],
    body: {},
  },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/releases/no-such-release/deploys/",
    need: "project:read",
    ok: [404],
  },
  {
    method: "POST",
    path: "/api/0/organizations/{org}/releases/no-such-release/deploys/",
    need: "project:releases",
    ok: [400],
    body: {},
  },
  {
    method: "POST",
    path: "/api/0/projects/{org}/{project}/releases/",
    need: "project:releases",
    ok: [400],
    body: {},
  },
  {
    method: "GET",
    path: "/api/0/projects/{org}/{project}/releases/no-such-release/",
    need: "project:read",
    ok: [404],
  },
  {
    method: "PUT",
    path: "/api/0/projects/{org}/{project}/releases/no-such-release/",
    need: "project:releases",
    ok: [404],
    body: {},
  },
  // Performance (issue-22-perf-traces).
  {
    method: "GET",
    path: "/api/0/organizations/{org}/performance/",
    need: "event:read",
    ok: [200],
  },
  // Alert rules (issue-21-rules).
  { method: "GET", path: "/api/0/projects/{org}/{project}/rules/", need: "alerts:read", ok: [200] },
  {
    method: "POST",
    path: "/api/0/projects/{org}/{project}/rules/",
    need: "alerts:write",
    ok: [400],
    body: {},
  },
  {
    method: "GET",
    path: `/api/0/projects/{org}/{project}/rules/${UNKNOWN}/`,
    need: "alerts:read",
    ok: [404],
  },
  {
    method: "PUT",
    path: `/api/0/projects/{org}/{project}/rules/${UNKNOWN}/`,
    need: "alerts:write",
    ok: [404, 400],
    body: {},
  },
  {
    method: "DELETE",
    path: `/api/0/projects/{org}/{project}/rules/${UNKNOWN}/`,
    need: "alerts:write",
    ok: [404],
  },
  // Uptime monitors (issue 34): admins create, members and viewers read.
  {
    method: "GET",
    path: "/api/0/projects/{org}/{project}/uptime/",
    need: "alerts:read",
    ok: [200],
  },
  {
    method: "POST",
    path: "/api/0/projects/{org}/{project}/uptime/",
    need: "alerts:write",
    ok: [400],
    body: {},
  },
  {
    method: "GET",
    path: `/api/0/projects/{org}/{project}/uptime/${UNKNOWN}/`,
    need: "alerts:read",
    ok: [404],
  },
  {
    method: "PUT",
    path: `/api/0/projects/{org}/{project}/uptime/${UNKNOWN}/`,
    need: "alerts:write",
    ok: [404],
    body: { name: "renamed" },
  },
  {
    method: "DELETE",
    path: `/api/0/projects/{org}/{project}/uptime/${UNKNOWN}/`,
    need: "alerts:write",
    ok: [404],
  },
  // Logs and crons (issue-22-logs-crons). The tail is a stream: a bad filter makes an allowed
  // call answer at once.
  {
    method: "GET",
    path: "/api/0/organizations/{org}/logs/volume/",
    need: "event:read",
    ok: [200],
  },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/logs/tail/?severity=nope",
    need: "event:read",
    ok: [400],
  },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/monitors/no-such-monitor/",
    need: "org:read",
    ok: [404],
  },
  {
    method: "PUT",
    path: "/api/0/organizations/{org}/monitors/no-such-monitor/",
    need: "project:write",
    ok: [404, 400],
    body: { isMuted: true },
  },
  {
    method: "DELETE",
    path: "/api/0/organizations/{org}/monitors/no-such-monitor/",
    need: "project:write",
    ok: [404],
  },
  // Alert delivery (issue-21-delivery).
  {
    method: "GET",
    path: "/api/0/projects/{org}/{project}/alert-deliveries/",
    need: "alerts:read",
    ok: [200, 400],
  },
  {
    method: "POST",
    path: "/api/0/projects/{org}/{project}/rule-actions/",
    need: "alerts:write",
    ok: [400, 404],
    body: {},
  },
  {
    method: "GET",
    path: "/api/0/organizations/{org}/monitors/no-such-monitor/alerts/",
    need: "alerts:read",
    ok: [404],
  },
  {
    method: "PUT",
    path: "/api/0/organizations/{org}/monitors/no-such-monitor/alerts/",
    need: "alerts:write",
    ok: [404, 400],
    body: {},
  },
];

import fs from "node:fs";
import path from "node:path";
import type { Action } from "../../src/auth/permissions";
import { ROOT } from "../helpers/server";

/**
 * Every server action, for the form-tampering test (form-tampering.test.ts). A branch that adds
 * a server action appends a row here; the test checks the table against the exported
 * functions of every "use server" file under app/ and against the build's action manifest, so
 * an action without a row fails the test.
 *
 * `need` is what the action asks of the role (the permissions table), "self" for a signed-in
 * user's own account, "public" for forms used signed out. `fields` is a real call on the
 * organization's own objects; `stronger` the same form asking for more (a value of a stronger
 * action, and the permission that value needs); `other` the form naming objects of another
 * organization (or user) instead.
 */
export type Pairs = [string, string][];

export interface Objects {
  org: string;
  project: string;
  key: string;
  issue: number;
  comment: number;
  feedback: number;
  monitor: string;
  rule: number;
  uptime: number;
  invitation: number;
  orgToken: number;
  search: number;
  ownerId: string;
  memberId: string;
  adminId: string;
  personalToken: number;
  projectId: number;
  trace: string;
  span: string;
}

export interface ActionCase {
  need: Action | "self" | "public";
  fields: (o: Objects) => Pairs;
  stronger?: { need: Action; fields: (o: Objects) => Pairs };
  other?: (o: Objects, other: Objects) => Pairs;
  /** List fields (ticked boxes), which may repeat. */
  lists?: string[];
  /** Takes plain arguments, not a form. */
  args?: (o: Objects) => unknown[];
  /** The other organization's objects are not refused with an error but simply not matched
   * (the answer counts none); nothing may change all the same. */
  otherUnmatched?: string;
  /** Why a check does not apply, for a reader of the table. */
  note?: string;
}

const RULE = JSON.stringify({
  name: "Tampered rule",
  environment: null,
  frequencyMinutes: 30,
  conditions: [{ kind: "first_seen" }],
  filters: [],
  actions: [{ kind: "email", target: "owners" }],
});

export const SERVER_ACTIONS: Record<string, ActionCase> = {
  "app/(auth)/account/api-tokens/actions.ts#createPersonalTokenAction": {
    need: "self",
    lists: ["scopes"],
    fields: () => [
      ["name", "tampered"],
      ["scopes", "org:read"],
    ],
  },
  "app/(auth)/account/api-tokens/actions.ts#revokePersonalTokenAction": {
    need: "self",
    fields: (o) => [["tokenId", String(o.personalToken)]],
    other: (_o, g) => [["tokenId", String(g.personalToken)]],
  },
  "app/(auth)/account/notifications/actions.ts#saveNotifications": {
    need: "self",
    lists: ["project"],
    fields: (o) => [
      ["mode", "custom"],
      ["project", String(o.projectId)],
    ],
    note: "another organization's project is dropped from the user's own settings",
  },
  "app/(auth)/account/password/actions.ts#changePassword": {
    need: "self",
    fields: () => [
      ["currentPassword", "not the password"],
      ["newPassword", "tampered password 1"],
    ],
  },
  "app/(auth)/forgot-password/actions.ts#forgotPassword": {
    need: "public",
    fields: () => [["email", "vera@example.com"]],
  },
  "app/(auth)/account/security/actions.ts#endSession": {
    need: "self",
    fields: () => [["sessionId", "no-such-session"]],
    note: "another user's session id is answered like a made-up one (tests/e2e/sessions.test.ts)",
  },
  "app/(auth)/account/security/actions.ts#endOtherSessionsAction": {
    need: "self",
    fields: () => [],
    note: "takes no fields",
  },
  "app/(auth)/invite/[token]/actions.ts#acceptAsCurrentUser": {
    need: "public",
    fields: () => [["token", "a".repeat(43)]],
  },
  "app/(auth)/invite/[token]/actions.ts#acceptWithNewAccount": {
    need: "public",
    fields: () => [
      ["token", "a".repeat(43)],
      ["name", "Tam Pered"],
      ["password", "tampered password 1"],
    ],
  },
  // Organizations and the instance (issue 39): a member is no instance administrator, so the
  // default policy refuses her a new organization and every instance form (403).
  "app/(auth)/organizations/new/actions.ts#createOrg": {
    need: "self",
    fields: () => [
      ["name", "Tampered"],
      ["slug", "tampered"],
    ],
  },
  "app/(auth)/settings/instance/actions.ts#setPolicy": {
    need: "self",
    fields: () => [["policy", "everyone"]],
  },
  "app/(auth)/settings/instance/actions.ts#addAdmin": {
    need: "self",
    fields: () => [["email", "member@example.com"]],
  },
  "app/(auth)/settings/instance/actions.ts#removeAdmin": {
    need: "self",
    fields: (o) => [["userId", o.ownerId]],
    other: (_o, g) => [["userId", g.ownerId]],
  },
  "app/(auth)/reset-password/[token]/actions.ts#resetPassword": {
    need: "public",
    fields: () => [
      ["token", "a".repeat(43)],
      ["password", "tampered password 1"],
    ],
  },
  "app/(auth)/setup/actions.ts#setUp": {
    need: "public",
    fields: () => [
      ["name", "Tam"],
      ["email", "tam@example.com"],
      ["password", "tampered password 1"],
      ["orgName", "Tampered"],
      ["orgSlug", "tampered"],
    ],
  },
  "app/(auth)/sign-in/actions.ts#signIn": {
    need: "public",
    fields: () => [
      ["email", "vera@example.com"],
      ["password", "wrong password"],
    ],
  },
  "app/(auth)/sign-in/actions.ts#signInWithSso": {
    need: "public",
    fields: () => [["email", "vera@example.com"]],
  },
  "app/(auth)/sign-in/actions.ts#signOut": {
    need: "public",
    fields: () => [],
    note: "takes no fields",
  },
  "app/[org]/alerts/actions.ts#saveRule": {
    need: "alerts.write",
    fields: (o) => [
      ["org", o.org],
      ["project", o.project],
      ["ruleId", String(o.rule)],
      ["rule", RULE],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["project", o.project],
      ["ruleId", String(g.rule)],
      ["rule", RULE],
    ],
  },
  "app/[org]/alerts/actions.ts#deleteRule": {
    need: "alerts.write",
    fields: (o) => [
      ["org", o.org],
      ["project", o.project],
      ["ruleId", String(o.rule)],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["project", o.project],
      ["ruleId", String(g.rule)],
    ],
  },
  "app/[org]/alerts/delivery-actions.ts#sendTestNotificationAction": {
    need: "alerts.write",
    fields: (o) => [
      ["org", o.org],
      ["project", o.project],
      ["ruleId", String(o.rule)],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["project", o.project],
      ["ruleId", String(g.rule)],
    ],
  },
  "app/[org]/crons/actions.ts#muteMonitor": {
    need: "projects.write",
    fields: (o) => [
      ["org", o.org],
      ["monitor", o.monitor],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["monitor", g.monitor],
    ],
  },
  "app/[org]/crons/actions.ts#unmuteMonitor": {
    need: "projects.write",
    fields: (o) => [
      ["org", o.org],
      ["monitor", o.monitor],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["monitor", g.monitor],
    ],
  },
  "app/[org]/crons/actions.ts#deleteMonitorAction": {
    need: "projects.write",
    fields: (o) => [
      ["org", o.org],
      ["monitor", o.monitor],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["monitor", g.monitor],
    ],
  },
  "app/[org]/feedback/actions.ts#changeFeedbackStatus": {
    need: "issues.write",
    fields: (o) => [
      ["org", o.org],
      ["id", String(o.feedback)],
      ["status", "spam"],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["id", String(g.feedback)],
      ["status", "spam"],
    ],
  },
  ...triage("resolveIssue"),
  ...triage("unresolveIssue"),
  ...triage("ignoreIssue"),
  "app/[org]/issues/[id]/merged/actions.ts#unmerge": {
    need: "issues.write",
    lists: ["fingerprint"],
    fields: (o) => [
      ["org", o.org],
      ["issueId", String(o.issue)],
      ["fingerprint", "0".repeat(32)],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["issueId", String(g.issue)],
      ["fingerprint", "0".repeat(32)],
    ],
  },
  "app/[org]/issues/[id]/team-actions.ts#assign": {
    need: "issues.write",
    fields: (o) => [
      ["org", o.org],
      ["issueId", String(o.issue)],
      ["assignee", o.adminId],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["issueId", String(g.issue)],
      ["assignee", o.adminId],
    ],
  },
  "app/[org]/issues/[id]/team-actions.ts#addComment": {
    need: "issues.write",
    fields: (o) => [
      ["org", o.org],
      ["issueId", String(o.issue)],
      ["text", "tampered"],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["issueId", String(g.issue)],
      ["text", "tampered"],
    ],
  },
  "app/[org]/issues/[id]/team-actions.ts#editComment": {
    need: "issues.write",
    fields: (o) => [
      ["org", o.org],
      ["issueId", String(o.issue)],
      ["commentId", String(o.comment)],
      ["text", "tampered"],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["issueId", String(o.issue)],
      ["commentId", String(g.comment)],
      ["text", "tampered"],
    ],
  },
  "app/[org]/issues/[id]/team-actions.ts#deleteComment": {
    need: "issues.write",
    fields: (o) => [
      ["org", o.org],
      ["issueId", String(o.issue)],
      ["commentId", String(o.comment)],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["issueId", String(g.issue)],
      ["commentId", String(g.comment)],
    ],
  },
  "app/[org]/issues/actions.ts#bulkIssues": {
    need: "issues.write",
    lists: ["id"],
    fields: (o) => [
      ["org", o.org],
      ["id", String(o.issue)],
      ["action", "resolve"],
    ],
    stronger: {
      need: "issues.delete",
      fields: (o) => [
        ["org", o.org],
        ["id", String(o.issue)],
        ["action", "confirm:delete"],
      ],
    },
    other: (o, g) => [
      ["org", o.org],
      ["id", String(g.issue)],
      ["action", "resolve"],
    ],
    otherUnmatched: "ticked ids are looked up inside the organization: 0 issues resolved",
  },
  "app/[org]/issues/actions.ts#saveSearch": {
    need: "org.read",
    fields: (o) => [
      ["org", o.org],
      ["name", "Tampered"],
      ["query", "is:unresolved"],
    ],
    stronger: {
      need: "org.write",
      fields: (o) => [
        ["org", o.org],
        ["name", "Tampered"],
        ["query", "is:unresolved"],
        ["shared", "on"],
      ],
    },
  },
  "app/[org]/issues/actions.ts#deleteSearch": {
    need: "org.read",
    fields: (o) => [
      ["org", o.org],
      ["id", String(o.search)],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["id", String(g.search)],
    ],
  },
  ...projectAction("updateProject", "projects.write", () => [
    ["name", "Tampered"],
    ["platform", ""],
  ]),
  ...projectAction("createKey", "keys.write", () => [["label", "tampered"]]),
  ...projectAction("setKeyEnabled", "keys.write", (o) => [
    ["key", o.key],
    ["enabled", "0"],
  ]),
  ...projectAction("deleteKey", "keys.write", (o) => [["key", o.key]]),
  ...projectAction("setKeyRateLimit", "keys.write", (o) => [
    ["key", o.key],
    ["window", "60"],
    ["count", "1"],
  ]),
  ...projectAction("saveDataSettings", "projects.write", () => [["scrubData", "on"]]),
  ...projectAction("deleteBundle", "projects.write", () => [["bundle", "1"]]),
  "app/[org]/projects/actions.ts#createProject": {
    need: "projects.write",
    fields: (o) => [
      ["org", o.org],
      ["name", "Tampered"],
      ["platform", ""],
    ],
  },
  "app/[org]/uptime/actions.ts#createUptimeMonitorAction": {
    need: "alerts.write",
    fields: (o) => [
      ["org", o.org],
      ["project", o.project],
      ["name", "Tampered"],
      ["url", "http://93.184.215.14/"],
      ["status", "disabled"],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["project", g.project],
      ["name", "Tampered"],
      ["url", "http://93.184.215.14/"],
      ["status", "disabled"],
    ],
  },
  "app/[org]/uptime/actions.ts#deleteUptimeMonitorAction": {
    need: "alerts.write",
    fields: (o) => [
      ["org", o.org],
      ["id", String(o.uptime)],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["id", String(g.uptime)],
    ],
  },
  "app/[org]/uptime/actions.ts#saveStatusPageAction": {
    need: "alerts.write",
    lists: ["monitors", "showUrl"],
    fields: (o) => [
      ["org", o.org],
      ["slug", `${o.org}-status`],
      ["title", "Status"],
      ["monitors", String(o.uptime)],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["slug", `${o.org}-status`],
      ["title", "Status"],
      ["monitors", String(g.uptime)],
    ],
  },
  "app/[org]/settings/auth-tokens/actions.ts#createOrgTokenAction": {
    need: "org.write",
    fields: (o) => [
      ["org", o.org],
      ["name", "tampered"],
    ],
  },
  "app/[org]/settings/auth-tokens/actions.ts#revokeOrgTokenAction": {
    need: "org.write",
    fields: (o) => [
      ["org", o.org],
      ["tokenId", String(o.orgToken)],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["tokenId", String(g.orgToken)],
    ],
  },
  "app/[org]/settings/members/actions.ts#addMember": {
    need: "members.write",
    fields: (o) => [
      ["org", o.org],
      ["email", "tampered@example.com"],
      ["role", "member"],
    ],
    stronger: {
      need: "owners.write",
      fields: (o) => [
        ["org", o.org],
        ["email", "tampered@example.com"],
        ["role", "owner"],
      ],
    },
  },
  "app/[org]/settings/members/actions.ts#changeRole": {
    need: "members.write",
    fields: (o) => [
      ["org", o.org],
      ["userId", o.memberId],
      ["role", "viewer"],
    ],
    stronger: {
      need: "owners.write",
      fields: (o) => [
        ["org", o.org],
        ["userId", o.memberId],
        ["role", "owner"],
      ],
    },
    other: (o, g) => [
      ["org", o.org],
      ["userId", g.ownerId],
      ["role", "viewer"],
    ],
  },
  "app/[org]/settings/members/actions.ts#removeMember": {
    need: "members.write",
    fields: (o) => [
      ["org", o.org],
      ["userId", o.memberId],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["userId", g.ownerId],
    ],
  },
  "app/[org]/settings/members/actions.ts#invite": {
    need: "members.write",
    fields: (o) => [
      ["org", o.org],
      ["email", "tampered@example.com"],
      ["role", "member"],
    ],
    stronger: {
      need: "owners.write",
      fields: (o) => [
        ["org", o.org],
        ["email", "tampered@example.com"],
        ["role", "owner"],
      ],
    },
  },
  "app/[org]/settings/members/actions.ts#revokeInvitation": {
    need: "members.write",
    fields: (o) => [
      ["org", o.org],
      ["invitationId", String(o.invitation)],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["invitationId", String(g.invitation)],
    ],
  },
  "app/[org]/settings/members/actions.ts#transferOwnership": {
    need: "owners.write",
    fields: (o) => [
      ["org", o.org],
      ["userId", o.adminId],
    ],
    other: (o, g) => [
      ["org", o.org],
      ["userId", g.ownerId],
    ],
  },
  "app/[org]/settings/members/actions.ts#leaveOrganization": {
    need: "org.read",
    fields: (o) => [["org", o.org]],
    note: "every member may leave; the form names only its organization",
  },
  "app/[org]/settings/organization/actions.ts#deleteOrganization": {
    need: "org.delete",
    fields: (o) => [
      ["org", o.org],
      ["confirm", o.org],
    ],
    other: (_o, g) => [
      ["org", g.org],
      ["confirm", g.org],
    ],
    note: "the real form is never sent as it is by a role that may: it would delete acme",
  },
  "app/[org]/settings/sso/actions.ts#saveSso": {
    need: "sso.write",
    fields: (o) => [
      ["org", o.org],
      ["issuer", "https://idp.example.com"],
      ["clientId", "tampered"],
      ["clientSecret", "tampered"],
      ["allowedDomains", "example.com"],
      ["defaultRole", "member"],
    ],
  },
  "app/[org]/settings/sso/actions.ts#removeSso": {
    need: "sso.write",
    fields: (o) => [["org", o.org]],
  },
  "app/[org]/stats/actions.ts#replayDeadLettersAction": {
    need: "projects.write",
    fields: (o) => [["org", o.org]],
    note: "replays the organization's own dead letters; the form names only its organization",
  },
  "app/[org]/traces/[traceId]/actions.ts#spanDetail": {
    need: "org.read",
    fields: () => [],
    args: (o) => [o.org, o.trace, o.span],
    other: () => [],
    note: "plain arguments: another organization's trace read through this one answers null",
  },
};

function triage(name: string): Record<string, ActionCase> {
  return {
    [`app/[org]/issues/[id]/actions.ts#${name}`]: {
      need: "issues.write",
      fields: (o) => [
        ["org", o.org],
        ["issueId", String(o.issue)],
      ],
      other: (o, g) => [
        ["org", o.org],
        ["issueId", String(g.issue)],
      ],
    },
  };
}

/** The project settings page's forms name the project by slug beside their own fields. */
function projectAction(
  name: string,
  need: Action,
  own: (o: Objects) => Pairs,
): Record<string, ActionCase> {
  return {
    [`app/[org]/projects/[slug]/actions.ts#${name}`]: {
      need,
      fields: (o) => [["org", o.org], ["project", o.project], ...own(o)],
      // The other organization's key beside this one's project, or its project by slug.
      other: (o, g) =>
        own(o).some(([k]) => k === "key")
          ? [
              ["org", o.org],
              ["project", o.project],
              ...own(o).map(([k, v]): [string, string] => [k, k === "key" ? g.key : v]),
            ]
          : [["org", o.org], ["project", g.project], ...own(o)],
    },
  };
}

/** `file#export` of every exported function of every "use server" file under app/. */
export function serverActionsInSource(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(entry.name)) {
        const text = fs.readFileSync(path.join(ROOT, rel), "utf8");
        if (!/^\s*["']use server["'];/.test(text)) continue;
        for (const m of text.matchAll(/^export\s+(?:async\s+)?function\s+(\w+)/gm))
          found.push(`${rel}#${m[1]}`);
      }
    }
  };
  walk("app");
  return found.sort();
}

/** `file#export` → action id and a page that uses it, from the build's manifest. */
export function serverActionsInBuild(): Map<string, { id: string; page: string }> {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(ROOT, ".next/server/server-reference-manifest.json"), "utf8"),
  ) as {
    node: Record<string, { filename: string; exportedName: string; workers: object }>;
  };
  const out = new Map<string, { id: string; page: string }>();
  for (const [id, v] of Object.entries(manifest.node)) {
    const pages = Object.keys(v.workers);
    const page = pages.find((p) => p.startsWith("app/(auth)")) ?? pages[0] ?? "";
    out.set(`${v.filename}#${v.exportedName}`, { id, page });
  }
  return out;
}

/** The URL of a page of the manifest (`app/[org]/issues/[id]/page`) for `o`'s objects. */
export function pageUrl(page: string, o: Objects): string {
  const filled = page
    .replace(/^app/, "")
    .replace(/\/page$/, "")
    .replace(/\/\([^)]+\)/g, "")
    .replace("[org]", o.org)
    .replace("[id]", String(o.issue))
    .replace("[slug]", o.project)
    .replace("[project]", o.project)
    .replace("[ruleId]", String(o.rule))
    .replace("[monitor]", o.monitor)
    .replace("[traceId]", o.trace)
    .replace("[token]", "a".repeat(43))
    .replace("[version]", "1.0.0");
  return filled || "/";
}

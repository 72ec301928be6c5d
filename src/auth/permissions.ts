/**
 * The one place that says what each role may do. Pages and server actions name the action
 * they need (`withOrg(slug, { need: "members.write" })`); nothing else compares roles.
 */
export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const ACTIONS = [
  /** See the organization, its projects, issues, events and members. */
  "org.read",
  /** Triage: resolve, ignore, assign, comment. */
  "issues.write",
  /** Delete issues and their events. */
  "issues.delete",
  /** Releases, deploys and source-map uploads (Sentry lets members do these). */
  "releases.write",
  "projects.write",
  /** DSN keys: create, disable, rate limits. */
  "keys.write",
  "alerts.write",
  /** Organization settings (name, slug). */
  "org.write",
  /** Add members, change their roles and remove them — except owners. */
  "members.write",
  /** Make, demote and remove owners. */
  "owners.write",
  /** Single sign-on: the identity provider, who it admits, whether it is required. */
  "sso.write",
  "org.delete",
] as const;
export type Action = (typeof ACTIONS)[number];

export const PERMISSIONS = {
  owner: [
    "org.read",
    "issues.write",
    "issues.delete",
    "releases.write",
    "projects.write",
    "keys.write",
    "alerts.write",
    "org.write",
    "members.write",
    "owners.write",
    "sso.write",
    "org.delete",
  ],
  admin: [
    "org.read",
    "issues.write",
    "issues.delete",
    "releases.write",
    "projects.write",
    "keys.write",
    "alerts.write",
    "org.write",
    "members.write",
  ],
  member: ["org.read", "issues.write", "releases.write"],
  viewer: ["org.read"],
} as const satisfies Record<Role, readonly Action[]>;

/**
 * Sentry's API scopes, which tokens carry and every `/api/0/` route names. A token never
 * gives more than its user's role: each scope needs the role action below.
 */
export const SCOPES = [
  "org:read",
  "org:write",
  "org:admin",
  "org:ci",
  "project:read",
  "project:write",
  "project:admin",
  "project:releases",
  "event:read",
  "event:write",
  "event:admin",
  "alerts:read",
  "alerts:write",
  "member:read",
  "member:write",
  "member:admin",
] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_ACTION = {
  "org:read": "org.read",
  "project:read": "org.read",
  "event:read": "org.read",
  "alerts:read": "org.read",
  "member:read": "org.read",
  "event:write": "issues.write",
  "event:admin": "issues.delete",
  "project:releases": "releases.write",
  "org:ci": "releases.write",
  "project:write": "projects.write",
  "project:admin": "projects.write",
  "alerts:write": "alerts.write",
  "member:write": "members.write",
  "member:admin": "members.write",
  "org:write": "org.write",
  "org:admin": "org.delete",
} as const satisfies Record<Scope, Action>;

/**
 * What holding a scope lets a token do, as Sentry's scope hierarchy: a write scope includes its
 * read, an admin scope its write. `org:ci` (organization auth tokens) and `project:releases`
 * both mean "releases and source-map uploads", so a route may name either.
 */
export const SCOPE_INCLUDES = {
  "org:read": ["org:read"],
  "org:write": ["org:read", "org:write"],
  "org:admin": ["org:read", "org:write", "org:admin"],
  "org:ci": ["org:ci", "project:releases"],
  "project:read": ["project:read"],
  "project:write": ["project:read", "project:write"],
  "project:admin": ["project:read", "project:write", "project:admin"],
  "project:releases": ["project:releases", "org:ci"],
  "event:read": ["event:read"],
  "event:write": ["event:read", "event:write"],
  "event:admin": ["event:read", "event:write", "event:admin"],
  "alerts:read": ["alerts:read"],
  "alerts:write": ["alerts:read", "alerts:write"],
  "member:read": ["member:read"],
  "member:write": ["member:read", "member:write"],
  "member:admin": ["member:read", "member:write", "member:admin"],
} as const satisfies Record<Scope, readonly Scope[]>;

/** Whether a token holding `held` may call a route that needs `need`. */
export function scopesAllow(held: Iterable<Scope>, need: Scope): boolean {
  for (const scope of held) {
    if ((SCOPE_INCLUDES[scope] as readonly Scope[]).includes(need)) return true;
  }
  return false;
}

/** The scopes a personal token may be given (account → API tokens). */
export const PERSONAL_TOKEN_SCOPES = [
  "org:read",
  "project:read",
  "project:write",
  "project:releases",
  "event:read",
  "event:write",
  "alerts:read",
  "alerts:write",
  "member:read",
] as const satisfies readonly Scope[];

/** Organization auth tokens carry only this scope, as Sentry's. */
export const ORG_TOKEN_SCOPES = ["org:ci"] as const satisfies readonly Scope[];

export function isScope(value: unknown): value is Scope {
  return typeof value === "string" && (SCOPES as readonly string[]).includes(value);
}

export function can(role: Role, action: Action): boolean {
  return (PERMISSIONS[role] as readonly Action[]).includes(action);
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/**
 * What a request for `need` in an organization comes to. Not signed in is told apart from
 * not a member, and a non-member learns nothing about the organization (not found, never
 * forbidden), so slugs cannot be probed.
 */
export type Access = "allowed" | "unauthenticated" | "not_found" | "forbidden";

export function decideAccess(signedIn: boolean, role: Role | undefined, need: Action): Access {
  if (!signedIn) return "unauthenticated";
  if (!role) return "not_found";
  return can(role, need) ? "allowed" : "forbidden";
}

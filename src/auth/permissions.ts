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
  "org.delete",
] as const;
export type Action = (typeof ACTIONS)[number];

export const PERMISSIONS = {
  owner: [
    "org.read",
    "issues.write",
    "projects.write",
    "keys.write",
    "alerts.write",
    "org.write",
    "members.write",
    "owners.write",
    "org.delete",
  ],
  admin: [
    "org.read",
    "issues.write",
    "projects.write",
    "keys.write",
    "alerts.write",
    "org.write",
    "members.write",
  ],
  member: ["org.read", "issues.write"],
  viewer: ["org.read"],
} as const satisfies Record<Role, readonly Action[]>;

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

/** The cookie naming the organization a browser opened last (components/nav/remember-org.tsx). */
export const LAST_ORG_COOKIE = "faultline_org";

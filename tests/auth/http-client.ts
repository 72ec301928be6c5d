import fs from "node:fs";
import path from "node:path";
import { ROOT } from "../helpers/server";

/**
 * A minimal browser over fetch: a cookie jar, page GETs, and server action calls encoded the
 * way React's client encodes them (POST to the page, `Next-Action: <id>`, the arguments as
 * multipart form data with a FormData argument's fields under the `_1_` prefix).
 */
export interface HttpResult {
  status: number;
  headers: Headers;
  body: string;
}

export class Client {
  readonly cookies = new Map<string, string>();
  /** The Set-Cookie lines of the last response, for checking cookie attributes. */
  lastSetCookies: string[] = [];

  constructor(readonly baseUrl: string) {}

  get(pathname: string): Promise<HttpResult> {
    return this.request(pathname, { method: "GET" });
  }

  /**
   * Calls a server action from `pathname`. `withState` for actions used with useActionState,
   * which receive (previousState, formData).
   */
  action(
    pathname: string,
    actionId: string,
    fields: Record<string, string> | readonly (readonly [string, string])[],
    options: { withState?: boolean; origin?: string; forwardedFor?: string } = {},
  ): Promise<HttpResult> {
    const form = new FormData();
    // A list of pairs may repeat a name or put fields in any order, as a tampered form does.
    const entries = Array.isArray(fields) ? fields : Object.entries(fields);
    for (const [name, value] of entries) form.append(`_1_${name}`, value);
    // The root goes last, as React sends it: the server decodes it as soon as it streams in.
    form.set("0", JSON.stringify(options.withState ? [null, "$K1"] : ["$K1"]));
    return this.post(pathname, actionId, form, options);
  }

  /** Calls a server action that takes plain arguments (not a form). */
  call(pathname: string, actionId: string, args: readonly unknown[]): Promise<HttpResult> {
    const form = new FormData();
    form.set("0", JSON.stringify(args));
    return this.post(pathname, actionId, form, {});
  }

  private post(
    pathname: string,
    actionId: string,
    form: FormData,
    options: { origin?: string; forwardedFor?: string },
  ): Promise<HttpResult> {
    return this.request(pathname, {
      method: "POST",
      body: form,
      headers: {
        "next-action": actionId,
        accept: "text/x-component",
        origin: options.origin ?? this.baseUrl,
        ...(options.forwardedFor ? { "x-forwarded-for": options.forwardedFor } : {}),
      },
    });
  }

  private async request(pathname: string, init: RequestInit): Promise<HttpResult> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    const res = await fetch(`${this.baseUrl}${pathname}`, { ...init, headers, redirect: "manual" });
    this.lastSetCookies = res.headers.getSetCookie();
    for (const line of this.lastSetCookies) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!value || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, headers: res.headers, body: await res.text() };
  }
}

/** The id Next gave an exported server action, from the build's manifest. */
export function actionId(file: string, exportedName: string): string {
  const manifest = JSON.parse(
    fs.readFileSync(path.join(ROOT, ".next/server/server-reference-manifest.json"), "utf8"),
  ) as { node: Record<string, { filename: string; exportedName: string }> };
  const entry = Object.entries(manifest.node).find(
    ([, v]) => v.filename === file && v.exportedName === exportedName,
  );
  if (!entry) throw new Error(`no server action ${exportedName} in ${file}: rebuild?`);
  return entry[0];
}

/** Where a fetch-style action call redirected to (`x-action-redirect: /path;push`). */
export function actionRedirect(result: HttpResult): string | undefined {
  return result.headers.get("x-action-redirect")?.split(";")[0];
}

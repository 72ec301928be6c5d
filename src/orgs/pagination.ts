import { AppError } from "../errors";

/**
 * Sentry's offset cursors, `<value>:<offset>:<is_prev>`, as `sentry-cli organizations list`
 * and `projects list` follow them: the first call sends `?cursor=` (empty), later ones the
 * `next` cursor of the `Link` header while its `results` is "true".
 */
export interface Page {
  offset: number;
  limit: number;
}

const MAX_PER_PAGE = 100;

export function pageOf(url: URL): Page {
  const cursor = url.searchParams.get("cursor") ?? "";
  const perPage = url.searchParams.get("per_page");
  let limit = MAX_PER_PAGE;
  if (perPage !== null) {
    if (!/^\d{1,3}$/.test(perPage) || Number(perPage) < 1 || Number(perPage) > MAX_PER_PAGE)
      throw new AppError("bad_request", `per_page: use a number from 1 to ${MAX_PER_PAGE}`);
    limit = Number(perPage);
  }
  if (cursor === "") return { offset: 0, limit };
  const match = /^\d{1,15}:(\d{1,9}):[01]$/.exec(cursor);
  if (!match) throw new AppError("bad_request", "cursor: invalid cursor parameter");
  return { offset: Number(match[1]), limit };
}

/**
 * Sentry's `Link` header for a page read with one row more than `limit`, so whether a next
 * page exists is known without counting.
 */
export function linkHeader(url: URL, page: Page, hasMore: boolean): string {
  const at = (offset: number, isPrev: 0 | 1) => {
    const u = new URL(url);
    const cursor = `0:${offset}:${isPrev}`;
    u.searchParams.set("cursor", cursor);
    return { href: u.toString(), cursor };
  };
  const prev = at(Math.max(0, page.offset - page.limit), 1);
  const next = at(page.offset + page.limit, 0);
  return [
    `<${prev.href}>; rel="previous"; results="${page.offset > 0}"; cursor="${prev.cursor}"`,
    `<${next.href}>; rel="next"; results="${hasMore}"; cursor="${next.cursor}"`,
  ].join(", ");
}

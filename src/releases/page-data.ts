import { z } from "zod";

/**
 * A release version in a URL segment: any text an SDK may send (≤ 200 characters). Links
 * encode it with encodeURIComponent; a segment that is not valid percent-encoding is taken
 * as it stands.
 */
export const versionSegment = z
  .string()
  .transform((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  })
  .pipe(z.string().min(1).max(200));

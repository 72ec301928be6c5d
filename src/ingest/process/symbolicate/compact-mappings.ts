/**
 * A source map's `mappings` decoded into typed arrays: five 32-bit integers a segment
 * (generated column, source, original line, original column, name; -1 when absent) and
 * where each generated line starts. trace-mapping keeps each segment as a JS array, ~96
 * bytes; this is ~20, which is what lets a worker hold a 2 MB bundle's map in ~15 MiB and
 * leaves that much less garbage when the cache evicts one. Lookups follow trace-mapping's
 * `originalPositionFor` (greatest lower bound on the column; the tests compare the two).
 */
export interface CompactMappings {
  /** segments × 5: genColumn, source, line, column, name. */
  segments: Int32Array;
  /** lineStarts[l] .. lineStarts[l + 1]: the segments of generated line l (0-based). */
  lineStarts: Uint32Array;
}

const FIELDS = 5;
const B64 = new Int8Array(128).fill(-1);
for (const [i, c] of [
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
].entries())
  B64[c.charCodeAt(0)] = i;

/** Undefined when the string is not valid VLQ (the caller reports an invalid map). */
export function decodeMappings(
  mappings: string,
  segmentCount: number,
): CompactMappings | undefined {
  const segments = new Int32Array(segmentCount * FIELDS);
  const starts: number[] = [0];
  let n = 0;
  let source = 0;
  let line = 0;
  let column = 0;
  let name = 0;
  let genColumn = 0;
  let field = 0;
  const values = [0, 0, 0, 0, 0];
  let value = 0;
  let shift = 0;
  const end = (): boolean => {
    if (field === 0) return true;
    if (n >= segmentCount || (field !== 1 && field !== 4 && field !== 5)) return false;
    const o = n * FIELDS;
    genColumn += values[0] as number;
    segments[o] = genColumn;
    if (field >= 4) {
      source += values[1] as number;
      line += values[2] as number;
      column += values[3] as number;
      segments[o + 1] = source;
      segments[o + 2] = line;
      segments[o + 3] = column;
      if (field === 5) name += values[4] as number;
      segments[o + 4] = field === 5 ? name : -1;
    } else {
      segments[o + 1] = -1;
      segments[o + 2] = -1;
      segments[o + 3] = -1;
      segments[o + 4] = -1;
    }
    n++;
    field = 0;
    return true;
  };
  for (let i = 0; i < mappings.length; i++) {
    const c = mappings.charCodeAt(i);
    if (c === 44 /* , */ || c === 59 /* ; */) {
      if (shift !== 0 || !end()) return undefined;
      if (c === 59) {
        starts.push(n);
        genColumn = 0;
      }
      continue;
    }
    const digit = c < 128 ? (B64[c] as number) : -1;
    if (digit === -1) return undefined;
    value += (digit & 31) * 2 ** shift;
    shift += 5;
    if (digit & 32) {
      if (shift > 30) return undefined;
      continue;
    }
    if (field >= FIELDS) return undefined;
    values[field++] = value & 1 ? -(value - 1) / 2 || -0x80000000 : value / 2;
    value = 0;
    shift = 0;
  }
  if (shift !== 0 || !end()) return undefined;
  starts.push(n);
  // Sorted by generated column within a line, as lookups need (trace-mapping sorts too).
  for (let l = 0; l + 1 < starts.length; l++)
    sortLine(segments, starts[l] as number, starts[l + 1] as number);
  return { segments: segments.subarray(0, n * FIELDS), lineStarts: Uint32Array.from(starts) };
}

function sortLine(segments: Int32Array, from: number, to: number): void {
  for (let i = from + 1; i < to; i++)
    if ((segments[i * FIELDS] as number) < (segments[(i - 1) * FIELDS] as number)) {
      const rows = Array.from({ length: to - from }, (_, k) =>
        segments.slice((from + k) * FIELDS, (from + k + 1) * FIELDS),
      );
      rows.sort((a, b) => (a[0] as number) - (b[0] as number));
      for (const [k, r] of rows.entries()) segments.set(r, (from + k) * FIELDS);
      return;
    }
}

export interface Position {
  source: number;
  line: number;
  column: number;
  name: number;
}

/** `line` 1-based, `column` 0-based, as trace-mapping's needle; null where nothing maps. */
export function lookup(m: CompactMappings, line: number, column: number): Position | null {
  const l = line - 1;
  if (l < 0 || l + 1 >= m.lineStarts.length) return null;
  let lo = m.lineStarts[l] as number;
  let hi = (m.lineStarts[l + 1] as number) - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const col = m.segments[mid * FIELDS] as number;
    if (col <= column) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found === -1) return null;
  // On an exact column, trace-mapping takes the first of the segments that share it.
  if (m.segments[found * FIELDS] === column)
    while (found > (m.lineStarts[l] as number) && m.segments[(found - 1) * FIELDS] === column)
      found--;
  const o = found * FIELDS;
  const source = m.segments[o + 1] as number;
  if (source < 0) return null;
  return {
    source,
    line: (m.segments[o + 2] as number) + 1,
    column: m.segments[o + 3] as number,
    name: m.segments[o + 4] as number,
  };
}

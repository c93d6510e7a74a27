/**
 * The smallest edit between two sequences of words, by Myers' O((N+M)D) difference algorithm
 * ("An O(ND) Difference Algorithm and Its Variations", 1986): the fewest words deleted and
 * inserted to turn one into the other, as stretches (hunks) between the words they keep. Words
 * the two share at the start and end are set aside first, and past `maxEdits` the middle is one
 * hunk, so a clause rewritten whole costs no more than its length squared once.
 */

/** Where two sequences differ: `a[aStart, aEnd)` became `b[bStart, bEnd)` (either may be empty). */
export interface Hunk {
  readonly aStart: number;
  readonly aEnd: number;
  readonly bStart: number;
  readonly bEnd: number;
}

/** Edits past which the middle of two sequences is taken as replaced whole. */
export const MAX_EDITS = 1_000;

/**
 * The hunks that turn `a` into `b`, in order.
 * @example diffWords(['pay', 'in', '30', 'days'], ['pay', 'in', '180', 'days']) // [{ aStart: 2, aEnd: 3, bStart: 2, bEnd: 3 }]
 */
export function diffWords(a: readonly string[], b: readonly string[], maxEdits = MAX_EDITS): Hunk[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  if (x.length === 0 && y.length === 0) return [];
  const matches = myersMatches(x, y, maxEdits);
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  for (const [mi, mj] of [...(matches ?? []), [x.length, y.length] as const]) {
    if (mi > i || mj > j)
      hunks.push({ aStart: head + i, aEnd: head + mi, bStart: head + j, bEnd: head + mj });
    i = mi + 1;
    j = mj + 1;
  }
  return hunks;
}

/**
 * The pairs of positions Myers' shortest edit keeps equal, in order; undefined when the edit
 * needs more than `maxEdits` steps (the caller then replaces the whole).
 */
function myersMatches(
  a: readonly string[],
  b: readonly string[],
  maxEdits: number,
): [number, number][] | undefined {
  const ids = new Map<string, number>();
  const id = (w: string) => {
    let v = ids.get(w);
    if (v === undefined) {
      v = ids.size;
      ids.set(w, v);
    }
    return v;
  };
  const A = Int32Array.from(a, id);
  const B = Int32Array.from(b, id);
  const n = A.length;
  const m = B.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // The furthest x on each diagonal after each step d: trace[d][k + d].
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
      let x = down ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && A[x] === B[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1));
        return backtrack(trace, A, B);
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  return undefined;
}

/** Walks the trace back from the end, collecting the equal pairs of each diagonal run. */
function backtrack(trace: readonly Int32Array[], A: Int32Array, B: Int32Array): [number, number][] {
  const out: [number, number][] = [];
  let x = A.length;
  let y = B.length;
  for (let d = trace.length - 1; d > 0; d--) {
    const prev = trace[d - 1] as Int32Array;
    const at = (k: number) => prev[k + d - 1] ?? 0;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    // The run of equal words after this step's one edit.
    const startX = down ? prevX : prevX + 1;
    while (x > startX && y > startX - k) {
      x--;
      y--;
      out.push([x, y]);
    }
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    out.push([x, y]);
  }
  return out.reverse();
}

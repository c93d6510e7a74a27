/**
 * Markdown's inline markup reduced to its text, in time linear in the line: every scan below
 * moves forward only, and the searches for a closing `]` or `)` remember where the next one is,
 * so a line of 100,000 unclosed `[a](` costs what it reads. (Backtracking patterns such as
 * `\[([^\]]+)\]\([^)]*\)` or `\*(.+?)\*` take time in the square of such a line.)
 */

/** The next index of `char` at or after `from` in `line`, remembered across calls; -1 if none. */
function finder(line: string, char: string): (from: number) => number {
  let found = -2;
  let searchedFrom = 0;
  return (from) => {
    // A search from an earlier position found the first `char` at or after it; nothing lies
    // between that position and `found`, so the answer holds for any `from` up to `found`.
    if (found === -2 || from < searchedFrom || (found >= 0 && from > found)) {
      found = line.indexOf(char, from);
      searchedFrom = from;
    }
    return found;
  };
}

/**
 * Links and images keep their text: `![alt](src)` → `alt` (first pass), then `[text](url)` and
 * `[text][ref]` → `text`.
 */
export function linkText(line: string): string {
  return bracketed(bracketed(line, true), false);
}

function bracketed(line: string, images: boolean): string {
  const closeBracket = finder(line, ']');
  const closeParen = finder(line, ')');
  let out = '';
  let copied = 0;
  for (let i = 0; i < line.length; i++) {
    const open = images ? (line[i] === '!' && line[i + 1] === '[' ? i + 1 : -1) : line[i] === '[' ? i : -1;
    if (open < 0) continue;
    const close = closeBracket(open + 1);
    if (close < 0) break;
    if (!images && close === open + 1) continue;
    let end = -1;
    if (line[close + 1] === '(') end = closeParen(close + 2);
    else if (!images && line[close + 1] === '[') end = closeBracket(close + 2);
    if (end < 0) continue;
    out += line.slice(copied, i) + line.slice(open + 1, close);
    copied = end + 1;
    i = end;
  }
  return out + line.slice(copied);
}

/** Code spans keep their content: a run of backticks up to the next run of the same length. */
export function codeSpanText(line: string): string {
  const runs: { start: number; length: number }[] = [];
  for (let i = 0; i < line.length; ) {
    if (line[i] !== '`') {
      i++;
      continue;
    }
    let j = i;
    while (line[j] === '`') j++;
    runs.push({ start: i, length: j - i });
    i = j;
  }
  // For each run, the index (in `runs`) of the next run of the same length.
  const nextSame = new Array<number>(runs.length).fill(-1);
  const lastOfLength = new Map<number, number>();
  for (let k = runs.length - 1; k >= 0; k--) {
    const run = runs[k] as { start: number; length: number };
    nextSame[k] = lastOfLength.get(run.length) ?? -1;
    lastOfLength.set(run.length, k);
  }
  const drop = new Set<number>();
  for (let k = 0; k < runs.length; k++) {
    if (drop.has(k)) continue;
    const match = nextSame[k] as number;
    const run = runs[k] as { start: number; length: number };
    // A span needs content, and cannot start inside an earlier span.
    if (match < 0 || (runs[match] as { start: number }).start === run.start + run.length) continue;
    drop.add(k);
    drop.add(match);
    // Runs between the two are content, not markup.
    k = match;
  }
  let out = '';
  let copied = 0;
  for (const k of [...drop].sort((a, b) => a - b)) {
    const run = runs[k] as { start: number; length: number };
    out += line.slice(copied, run.start);
    copied = run.start + run.length;
  }
  return out + line.slice(copied);
}

const isSpace = (c: string | undefined): boolean => c === undefined || /\s/.test(c);
const isWord = (c: string | undefined): boolean => c !== undefined && /\w/.test(c);

/**
 * Emphasis and strike-through keep their content: `**x**`, `__x__`, `*x*`, `_x_`, `~~x~~`. A
 * delimiter opens when followed by a non-space and closes when preceded by one; single `*` and
 * `_` also need no word character (or the same delimiter) outside them, so `2 * 3 * 4` and
 * `snake_case_name` stay. Each closer pairs with the nearest open delimiter of its kind, kept on
 * one stack per kind, so every delimiter is pushed and popped at most once.
 */
export function emphasisText(line: string): string {
  const open = new Map<string, number[]>();
  const drop: { at: number; length: number }[] = [];
  for (let i = 0; i < line.length; ) {
    const c = line[i] as string;
    if (c !== '*' && c !== '_' && c !== '~') {
      i++;
      continue;
    }
    let j = i;
    while (line[j] === c) j++;
    const run = j - i;
    // `~~`, and `*`/`_` runs of one to three (`***x***` is strong emphasis inside emphasis).
    const pieces = c === '~' ? (run === 2 ? [2] : []) : run === 3 ? [2, 1] : run <= 2 ? [run] : [];
    let at = i;
    for (const length of pieces) {
      const kind = c.repeat(length);
      const before = line[i - 1];
      const after = line[j];
      const single = length === 1;
      const canOpen = !isSpace(after) && (!single || (!isWord(before) && before !== c));
      const canClose = !isSpace(before) && (!single || (!isWord(after) && after !== c));
      const stack = open.get(kind) ?? [];
      const opener = canClose ? stack.pop() : undefined;
      if (opener !== undefined) {
        drop.push({ at: opener, length }, { at, length });
      } else if (canOpen) {
        stack.push(at);
        open.set(kind, stack);
      }
      at += length;
    }
    i = j;
  }
  if (drop.length === 0) return line;
  drop.sort((a, b) => a.at - b.at);
  let out = '';
  let copied = 0;
  for (const d of drop) {
    out += line.slice(copied, d.at);
    copied = d.at + d.length;
  }
  return out + line.slice(copied);
}

/**
 * Where the normalised text's offsets lie in a Word document. Clause offsets index the
 * normalised text (mammoth's raw text of the body, then `normaliseText`: spaces folded,
 * invisible characters dropped, lines trimmed), not the document's XML. So the text of every
 * `w:t` in the body that mammoth reads is read in document order, and its visible characters
 * (not whitespace, not invisible) are aligned one for one with the normalised text's. Where the
 * two part (text only one of them has, such as a text box read differently), the alignment
 * finds the next stretch of the normalised text a little further on in the document and carries
 * on from there. report.docx places its comments and changes by it; intake places the upload's
 * own tracked changes and comments by it.
 */
import { isW, wChild } from './names.js';

/** One visible character of the document: the `w:t` element it is in, and where in its text. */
export interface Atom {
  readonly node: Element;
  /** Position of the `w:t` in document order (for sorting boundaries). */
  readonly nodeOrdinal: number;
  readonly offset: number;
}

/** Characters that carry no position: whitespace, and what normalisation drops. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: normalisation drops control characters, so they carry no position.
const SKIPPED = /[\s\u00ad\u200b-\u200d\u2060\ufeff\u0000-\u001f\u007f-\u009f]/;

/** Whether a character carries no position (whitespace, or what normalisation drops). */
export const positionless = (ch: string): boolean => SKIPPED.test(ch);

/** Characters of normalised text read ahead to find where the document picks up again. */
const RESYNC_KEY = 12;
/** How far ahead in the document to look for it. */
const RESYNC_WINDOW = 4000;

/** The text of a `w:t` element. */
export const textOf = (t: Element): string => t.textContent ?? '';

/**
 * Whether an element's content is left out of the text mammoth reads (and Word shows with every
 * change accepted): a tracked deletion (`w:del`), text moved away (`w:moveFrom`, whose text is
 * `w:t`, not `w:delText`), and a table row whose deletion is tracked (`w:trPr/w:del`).
 */
export function outsideText(el: Element): boolean {
  if (isW(el, 'del') || isW(el, 'moveFrom')) return true;
  if (!isW(el, 'tr')) return false;
  const trPr = wChild(el, 'trPr');
  return trPr !== undefined && wChild(trPr, 'del') !== undefined;
}

/** Every `w:t` of the body mammoth reads, in document order, with its visible characters as atoms. */
export function documentAtoms(body: Element): { atoms: Atom[]; chars: string } {
  const atoms: Atom[] = [];
  const chars: string[] = [];
  let ordinal = 0;
  const walk = (el: Element) => {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const child = n as Element;
      if (isW(child, 't')) {
        const text = textOf(child);
        const nodeOrdinal = ordinal++;
        for (let i = 0; i < text.length; i++) {
          const ch = text[i] ?? '';
          if (SKIPPED.test(ch)) continue;
          atoms.push({ node: child, nodeOrdinal, offset: i });
          chars.push(ch);
        }
      } else if (!outsideText(child)) walk(child);
    }
  };
  walk(body);
  return { atoms, chars: chars.join('') };
}

/**
 * For each position of `text`, the atom its character is aligned with, or -1 (whitespace, or
 * a character the document does not have where expected).
 */
export function alignText(text: string, docChars: string): Int32Array {
  const map = new Int32Array(text.length).fill(-1);
  const visible: number[] = [];
  for (let i = 0; i < text.length; i++) if (!SKIPPED.test(text[i] ?? '')) visible.push(i);
  const key = (from: number) =>
    visible
      .slice(from, from + RESYNC_KEY)
      .map((p) => text[p])
      .join('');
  let i = 0;
  let j = 0;
  while (i < visible.length && j < docChars.length) {
    const pos = visible[i] ?? 0;
    if (text[pos] === docChars[j]) {
      map[pos] = j;
      i++;
      j++;
      continue;
    }
    const found = docChars.slice(j, j + RESYNC_WINDOW + RESYNC_KEY).indexOf(key(i));
    if (found > 0) j += found;
    else i++;
  }
  return map;
}

/**
 * The atoms a span of the normalised text begins and ends on: its first and last aligned
 * characters; a span with none is anchored on the nearest aligned character before it (or
 * after it), so every clause gets its comment.
 */
export function spanAtoms(
  map: Int32Array,
  start: number,
  end: number,
): { from: number; to: number } | undefined {
  let from = -1;
  let to = -1;
  for (let p = Math.max(0, start); p < Math.min(end, map.length); p++) {
    if ((map[p] ?? -1) >= 0) {
      from = map[p] ?? -1;
      break;
    }
  }
  for (let p = Math.min(end, map.length) - 1; p >= start && p >= 0; p--) {
    if ((map[p] ?? -1) >= 0) {
      to = map[p] ?? -1;
      break;
    }
  }
  if (from >= 0 && to >= from) return { from, to };
  for (let p = Math.min(start, map.length) - 1; p >= 0; p--)
    if ((map[p] ?? -1) >= 0) return { from: map[p] ?? 0, to: map[p] ?? 0 };
  for (let p = Math.max(0, end); p < map.length; p++)
    if ((map[p] ?? -1) >= 0) return { from: map[p] ?? 0, to: map[p] ?? 0 };
  return undefined;
}

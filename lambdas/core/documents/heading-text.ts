/** Words a Title Case heading leaves in lower case ("Limitation of Liability"). */
const MINOR_WORDS = new Set(
  'a an and as at but by for from in into nor of on or per the to upon via vs v with without under over between within its their this that than etc'.split(
    ' ',
  ),
);

/** Party names in signature blocks look like capitalised headings; their suffix gives them away. */
const COMPANY_SUFFIX =
  /\b(?:INC|LLC|L\.L\.C|LTD|LIMITED|CORP|CORPORATION|COMPANY|L\.?P|N\.A|PLC|GMBH|AG|S\.A|B\.V|CO)\.?,?$/i;

const LETTER = /\p{L}/gu;
const UPPER = /\p{Lu}/gu;

function letterCounts(s: string): { letters: number; upper: number } {
  return { letters: s.match(LETTER)?.length ?? 0, upper: s.match(UPPER)?.length ?? 0 };
}

const isCapitalised = (word: string): boolean => /^["“'‘([]?[\p{Lu}\d§&]/u.test(word);

/** True when every word that is not a minor word starts with a capital (or digit). */
function isTitleCase(words: readonly string[]): boolean {
  if (words.length === 0 || !isCapitalised(words[0] as string)) return false;
  return words.every((w) => isCapitalised(w) || MINOR_WORDS.has(w.toLowerCase().replace(/[^a-z]/g, '')));
}

/** True when the text is mostly capital letters, like `LIMITATION OF LIABILITY`. */
function isAllCaps(s: string): boolean {
  const { letters, upper } = letterCounts(s);
  return upper >= 3 && upper >= letters * 0.85;
}

/**
 * True when a whole line reads as a heading: short, no sentence inside, no trailing comma or
 * semicolon, and either in capitals (`CONFIDENTIALITY`) or Title Case (`Term of Agreement`).
 * Signature-block lines (`/s/`, `____`, `Name: ...`, `ACME, INC.`) are not headings.
 */
export function isHeadingLine(line: string): boolean {
  if (line.length < 2 || line.length > 100) return false;
  if (/[,;]$/.test(line) || /\/s\/|_{3}|\.{4}|…/.test(line)) return false;
  if (!/^["“'‘([]?[\p{Lu}\d§]/u.test(line)) return false;
  const colon = line.indexOf(':');
  if (colon >= 0 && colon < line.length - 1) return false;
  // A full stop followed by more words is a sentence, unless it is an initial or "No." in capitals.
  if (/[a-z]{2}[.!?] \S/.test(line)) return false;
  const words = line.split(' ');
  if (!words.some((w) => /\p{L}{3}/u.test(w))) return false;
  if (isAllCaps(line)) return words.length <= 14 && !COMPANY_SUFFIX.test(line);
  if (words.length > 8 || (line.endsWith('.') && words.length > 3)) return false;
  // "And:" or "Of the" between address lines is not a heading.
  if (words.every((w) => MINOR_WORDS.has(w.toLowerCase().replace(/[^a-z]/g, '')))) return false;
  return isTitleCase(words.map((w) => w.replace(/[.:]$/, '')));
}

/**
 * True when the text after a label, up to the next label or the end of the line, is a heading and
 * nothing else: `ARTICLE I - DEFINITIONS`, `1. General provisions`, `(a) Transactional Business`.
 * Sentence case is accepted here because the label already marks the line as structure.
 */
export function isLabelTitle(segment: string): boolean {
  const title = segment.replace(/[.:]$/, '');
  if (title.length < 2 || title.length > 80) return false;
  if (/[,;.!?]$/.test(title) || /[.!?;] /.test(title) || /\/s\/|_{3}/.test(title)) return false;
  if (!/^["“'‘([]?[\p{Lu}\d]/u.test(title)) return false;
  const words = title.split(' ');
  if (!words.some((w) => /\p{L}{3}/u.test(w))) return false;
  if (isAllCaps(title)) return words.length <= 14;
  return words.length <= 8 && !(segment.endsWith('.') && !isTitleCase(words));
}

/**
 * The heading run into the start of a clause's text: capitals ending at a full stop, colon or dash
 * (`CONDITIONS. This Agreement ...`, `TRANSPORTATION QUANTITY - shall mean ...`), or a short Title
 * Case phrase ending in a full stop (`Definitions. For the purposes ...`). Undefined when there is none.
 */
export function runInHeading(text: string): string | undefined {
  const words = text.split(' ');
  const caps: string[] = [];
  let closed = false;
  for (const [i, word] of words.entries()) {
    if (i >= 10 || !/\p{Lu}/u.test(word) || /\p{Ll}/u.test(word)) {
      // The run must be followed by ordinary text for it to be a heading rather than a shouted sentence.
      closed = caps.length > 0 && (/^[-–—]$/.test(word) || /^[\p{Lu}"“(][\p{Ll}]/u.test(word));
      break;
    }
    caps.push(word);
    if (/[.:]$/.test(word) || /^[-–—]$/.test(words[i + 1] ?? '')) {
      closed = true;
      break;
    }
  }
  // "REMUNERATION C. A donation ...": the lone letter is the next item's label, not the heading's.
  if (closed && caps.length > 1 && /^\p{Lu}\.$/u.test(caps[caps.length - 1] as string)) caps.pop();
  if (closed && isAllCaps(caps.join(' '))) {
    const heading = caps.join(' ').replace(/[.:]$/, '');
    if (heading.length <= 90) return heading;
  }
  const phrase = /^(.{2,80}?)(?:[.:]| [-–—])(?: |$)/u.exec(text)?.[1];
  if (phrase === undefined) return undefined;
  const phraseWords = phrase.split(' ');
  if (phraseWords.length > 8 || !phraseWords.some((w) => /\p{L}{3}/u.test(w))) return undefined;
  return isTitleCase(phraseWords) ? phrase : undefined;
}

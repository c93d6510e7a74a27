/**
 * Where a model's quote lies in a clause: exactly, or with the clause's irregular whitespace
 * re-flowed, mapped back to the clause's own offsets.
 */

/** A span inside the clause text, clause-local offsets. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Where `quote` occurs in `text`: exactly if possible, otherwise ignoring differences in
 * whitespace only (models re-flow the irregular spacing of PDF-extracted text), mapped
 * back to offsets in the original text. Whitespace around the quote is not part of the
 * span, and a blank quote is never found. The first occurrence wins.
 */
export function locateQuote(text: string, quote: string): Span | undefined {
  const trimmed = quote.trim();
  if (trimmed.length === 0) return undefined;
  const exact = text.indexOf(trimmed);
  if (exact >= 0) return { start: exact, end: exact + trimmed.length };

  const needle = collapseWhitespace(trimmed).collapsed;
  const haystack = collapseWhitespace(text);
  const at = haystack.collapsed.indexOf(needle);
  if (at < 0) return undefined;
  // The needle starts and ends on non-space characters, each of which maps to exactly
  // one character of the original text.
  return { start: haystack.origin[at], end: haystack.origin[at + needle.length - 1] + 1 };
}

/** `text` with every run of whitespace turned into one space, and the original offset of each character. */
function collapseWhitespace(text: string): { collapsed: string; origin: number[] } {
  let collapsed = '';
  const origin: number[] = [];
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      if (inSpace) continue;
      inSpace = true;
      collapsed += ' ';
    } else {
      inSpace = false;
      collapsed += ch;
    }
    origin.push(i);
  }
  return { collapsed, origin };
}

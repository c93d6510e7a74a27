/**
 * Spaces that are not U+0020 but mean one: tab, no-break, en/em and other typographic spaces,
 * ideographic space. PDF and Word exports use them freely; the splitter wants plain spaces.
 */
const ODD_SPACES = /[\t\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/g;

/** Zero-width characters and the soft hyphen: invisible, and they would break words for matching. */
const INVISIBLES = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;

/** C0 and C1 control characters other than the line feed, which carries structure. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

/**
 * Brings extracted text into the one canonical form every offset in the pipeline refers to:
 * Unicode NFC, LF line ends, page breaks as blank lines, plain single spaces, no control or
 * invisible characters, lines trimmed, at most one blank line in a row, no surrounding whitespace.
 *
 * Idempotent: `normaliseText(normaliseText(s)) === normaliseText(s)`.
 */
export function normaliseText(raw: string): string {
  const lines = raw
    .normalize('NFC')
    .replace(/\r\n?|[\u0085\u2028]/g, '\n')
    // Form feeds and paragraph separators end a page or paragraph: keep them as a blank line, not
    // as nothing, so the words on either side do not run together.
    .replace(/[\f\u2029]/g, '\n\n')
    .replace(ODD_SPACES, ' ')
    .replace(INVISIBLES, '')
    .replace(CONTROLS, '')
    .split('\n');
  const out: string[] = [];
  let blank = 0;
  for (const line of lines) {
    const clean = line.replace(/ {2,}/g, ' ').trim();
    if (clean === '') {
      blank++;
      continue;
    }
    if (out.length > 0 && blank > 0) out.push('');
    blank = 0;
    out.push(clean);
  }
  return out.join('\n');
}

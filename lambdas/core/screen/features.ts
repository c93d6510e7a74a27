/**
 * The learned classifier's features: lower-case words and adjacent word pairs of a passage, with
 * numbers folded into one token ("30 days" and "90 days" share "# days"). Training, intake's
 * relevance screen and the stand-in's learned analyst use this one function, so a model always
 * sees the features it was trained on.
 */

const isAlnum = (code: number): boolean =>
  (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);

/** Word tokens of a text: letters and digits, lower-cased; a token with a digit becomes `#`. */
export function words(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  let digit = false;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    if (isAlnum(code)) {
      if (start === -1) {
        start = i;
        digit = false;
      }
      if (code >= 48 && code <= 57) digit = true;
      continue;
    }
    if (start !== -1) {
      out.push(digit ? '#' : text.slice(start, i).toLowerCase());
      start = -1;
    }
  }
  return out;
}

/** Distinct feature strings of a text: every word and every pair of adjacent words. */
export function featureStrings(text: string): Set<string> {
  const tokens = words(text);
  const out = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    out.add(token);
    if (i + 1 < tokens.length) out.add(`${token} ${tokens[i + 1]}`);
  }
  return out;
}

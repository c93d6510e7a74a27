/** A span of the normalised text, `start` inclusive, `end` exclusive. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** Words whose full stop does not end a sentence. */
const ABBREVIATION =
  /(?:^|[\s(])(?:inc|co|corp|ltd|llc|no|nos|mr|mrs|ms|dr|st|jr|sr|vs|v|etc|sec|secs|art|para|approx|fig|ref|cf|ex|viz|e\.g|i\.e|u\.s|u\.k|l\.p|n\.a|s\.a|b\.v|[a-z])\.$/i;

/**
 * Where a span may be cut, best first: after a sentence, after a semicolon, at a line break,
 * after a comma, at any space. Each position is the end of the first part; whitespace after it
 * belongs to neither part.
 */
const TIERS: readonly RegExp[] = [
  /[.!?]["”’')\]]*(?= +["“'‘([]?[\p{Lu}\d])/gu,
  /;(?= )/g,
  /(?=\n)/g,
  /,(?= )/g,
  /(?= )/g,
];

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\n';

/**
 * Cuts a span longer than `max` characters into parts of at most `max` and at least `min`
 * characters, of similar length, preferring sentence ends (abbreviations such as "Inc." and list
 * labels such as "1." are not sentence ends), then weaker breaks, then a hard cut. Parts are
 * trimmed and together cover every non-space character of the span, in order.
 */
export function splitLongSpan(text: string, span: Span, max: number, min: number): Span[] {
  const parts: Span[] = [];
  let cur = span.start;
  while (span.end - cur > max) {
    const remaining = span.end - cur;
    const target = cur + remaining / Math.ceil(remaining / max);
    const hi = Math.min(cur + max, span.end - min);
    const cut =
      bestCut(text, cur, span.end, target, Math.max(cur + min, target - (target - cur) / 2), hi, min) ??
      bestCut(text, cur, span.end, target, cur + min, hi, min) ??
      hardCut(text, hi);
    parts.push({ start: cur, end: cut });
    cur = cut;
    while (isSpace(text[cur])) cur++;
  }
  parts.push({ start: cur, end: span.end });
  return parts;
}

function bestCut(
  text: string,
  cur: number,
  end: number,
  target: number,
  lo: number,
  hi: number,
  min: number,
): number | undefined {
  if (lo > hi) return undefined;
  const window = text.slice(cur, Math.min(end, hi + 200));
  for (const [tier, re] of TIERS.entries()) {
    let best: number | undefined;
    for (const m of window.matchAll(re)) {
      const pos = cur + (m.index as number) + m[0].length;
      if (pos < lo) continue;
      if (pos > hi) break;
      if (
        tier === 0 &&
        ABBREVIATION.test(text.slice(Math.max(cur, pos - 12), pos).replace(/["”’')\]]+$/, ''))
      )
        continue;
      if (tier === 0 && /(?:^|\s)\d{1,2}\.$/.test(text.slice(Math.max(cur, pos - 4), pos))) continue;
      let next = pos;
      while (isSpace(text[next])) next++;
      if (end - next < min || isSpace(text[pos - 1])) continue;
      if (best === undefined || Math.abs(pos - target) < Math.abs(best - target)) best = pos;
    }
    if (best !== undefined) return best;
  }
  return undefined;
}

/** A cut inside a word, for text with no usable break; never between the halves of a surrogate pair. */
function hardCut(text: string, at: number): number {
  let cut = at;
  const code = text.charCodeAt(cut);
  if (code >= 0xdc00 && code <= 0xdfff) cut--;
  // The first part must end on a non-space character to stay trimmed.
  while (isSpace(text[cut - 1])) cut--;
  return cut;
}

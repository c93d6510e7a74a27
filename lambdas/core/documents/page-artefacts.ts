import { parseMarkerAt } from './clause-marker.js';

/** Page numbers as converters leave them: `3`, `- 3 -`, `Page 3`, `Page 3 of 12`, `3 of 12`, `iv`. */
const PAGE_NUMBER = /^(?:(?:page\s*)?[-–—(]?\s*\d{1,4}\s*[-–—)]?(?:\s*of\s*\d{1,4})?|[ivxl]{1,6})$/i;

/** A line seen this many times (digits ignored) is a running header or footer, not content. */
const REPEATS = 3;
const MAX_ARTEFACT_LENGTH = 150;

/**
 * Marks the lines that are page furniture rather than contract text: page numbers, and running
 * headers and footers (short lines repeated on every page, e.g. "Source: ACME CORP, 10-K, 3/1/2019"
 * or "Confidential"). Such lines never start a clause, so a sentence broken by a page break stays
 * in one clause. Lines that carry a clause label are never furniture.
 */
export function findPageArtefacts(lines: readonly string[]): boolean[] {
  const key = (line: string): string => line.toLowerCase().replace(/\d+/g, '#');
  const counts = new Map<string, number>();
  for (const line of lines) {
    if (line.length <= MAX_ARTEFACT_LENGTH) counts.set(key(line), (counts.get(key(line)) ?? 0) + 1);
  }
  return lines.map((line) => {
    if (line === '') return false;
    if (PAGE_NUMBER.test(line)) return true;
    // Twice is enough for a short line with a number in it: "Source: ACME, 8-K, 12/6/2017" on a two-page filing.
    const needed = line.length <= 80 && /\d/.test(line) ? 2 : REPEATS;
    if (line.length > MAX_ARTEFACT_LENGTH || (counts.get(key(line)) ?? 0) < needed) return false;
    return parseMarkerAt(line, 0) === undefined;
  });
}

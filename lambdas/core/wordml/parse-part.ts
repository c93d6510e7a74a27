import { DOMParser } from '@xmldom/xmldom';

/**
 * A package part's XML as a DOM, or the first error of a parser that reports every one (a part
 * a lenient reader would half-read is refused instead: nothing is read from a guess).
 */
export function parsePart(xml: string): { doc: Document } | { error: string } {
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: { error: (m) => errors.push(m), fatalError: (m) => errors.push(m) },
  }).parseFromString(xml, 'text/xml');
  if (errors.length > 0 || !doc.documentElement) return { error: errors[0] ?? 'empty' };
  return { doc };
}

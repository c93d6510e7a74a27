/**
 * The content hash of a playbook: sha256 of its canonical JSON, so that the same positions give
 * the same hash whatever the file's format, layout, comments or key order. The canonical form
 * is RFC 8785's (JSON Canonicalization Scheme) for the data a playbook holds: object keys
 * sorted by UTF-16 code units, no whitespace, strings and numbers as ECMAScript's
 * `JSON.stringify` writes them (https://www.rfc-editor.org/rfc/rfc8785).
 */
import { createHash } from 'node:crypto';

/**
 * `value` as canonical JSON: keys sorted, no whitespace, `undefined` members left out.
 * @throws TypeError for what JSON cannot hold (a non-finite number, a function, a bigint)
 * @example canonicalJson({ b: [2, 1], a: 'x' }) // '{"a":"x","b":[2,1]}'
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`${value} has no JSON form`);
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`a ${typeof value} has no JSON form`);
}

/** The sha256 (hex) of a canonical JSON text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

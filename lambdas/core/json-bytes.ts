/**
 * `Buffer.byteLength(JSON.stringify(value), 'utf8')`, from remembered parts.
 *
 * Every request of one analyst on one document repeats the same large parts verbatim: the
 * document-context prefix, the tool definitions, the system prompts. Pricing a call's worst
 * case stringified the whole request (about 30 KB) four times per call on the intent and twice
 * more before the request, about 0.5 ms of CPU per call on the event loop that also starts the
 * calls. Here an object's size is remembered by identity and a long string's by value, so a part
 * is measured once and a request costs the size of what is new in it.
 *
 * The result is exactly `JSON.stringify`'s length for JSON data (plain objects, arrays,
 * strings, numbers, booleans, null, with `undefined` left out or written as null as it does);
 * anything else (a `toJSON`, a Map, a typed array) is measured by `JSON.stringify` itself. An
 * object must not change after it was first measured: requests are built fresh and never
 * edited.
 */

const OBJECT_BYTES = new WeakMap<object, number>();
/** Sizes of long strings' JSON (short ones cost less to measure than to look up). */
const STRING_BYTES = new Map<string, number>();
const LONG_STRING = 512;
/** Bound on remembered strings; past it the memory starts over. */
const MAX_STRINGS = 2048;

/** The UTF-8 length of `JSON.stringify(value)`; 0 where it gives undefined. */
export function jsonBytes(value: unknown): number {
  return bytesOf(value) ?? 0;
}

/** The UTF-8 length of a value's JSON, undefined where JSON leaves the value out. */
function bytesOf(value: unknown): number | undefined {
  if (typeof value === 'string') return stringBytes(value);
  if (typeof value !== 'object' || value === null || !isPlain(value)) {
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined ? undefined : Buffer.byteLength(text, 'utf8');
  }
  let bytes = OBJECT_BYTES.get(value);
  if (bytes === undefined) {
    // Brackets, and a comma between members.
    bytes = 2;
    if (Array.isArray(value)) {
      for (const v of value) bytes += bytesOf(v) ?? 4;
      bytes += Math.max(0, value.length - 1);
    } else {
      let members = 0;
      for (const [k, v] of Object.entries(value)) {
        const b = bytesOf(v);
        if (b === undefined) continue;
        // The key, its colon, the value.
        bytes += stringBytes(k) + 1 + b;
        members++;
      }
      bytes += Math.max(0, members - 1);
    }
    OBJECT_BYTES.set(value, bytes);
  }
  return bytes;
}

function stringBytes(s: string): number {
  if (s.length < LONG_STRING) return Buffer.byteLength(JSON.stringify(s), 'utf8');
  let bytes = STRING_BYTES.get(s);
  if (bytes === undefined) {
    if (STRING_BYTES.size >= MAX_STRINGS) STRING_BYTES.clear();
    bytes = Buffer.byteLength(JSON.stringify(s), 'utf8');
    STRING_BYTES.set(s, bytes);
  }
  return bytes;
}

/** Arrays, and objects JSON writes member by member (no prototype of their own, no `toJSON`). */
function isPlain(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return (
    (proto === Object.prototype || proto === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}

/**
 * Reading a package's XML as a strict XML 1.0 processor does, where xmldom (what the writer
 * uses) lets through what Word refuses. Two steps: the bytes are decoded as UTF-8 with
 * `fatal: true`, which refuses malformed sequences and encoded surrogates (a lone surrogate
 * can only reach the bytes that way); then saxes parses the text, enforcing well-formedness,
 * namespaces and the `Char` production (C0 controls, U+FFFE, U+FFFF, a lone low surrogate). saxes
 * does not notice a lone high surrogate in a JavaScript string, which the fatal decoder covers.
 */
import { unzipSync } from 'fflate';
import { SaxesParser } from 'saxes';

/** The errors a strict reading of XML bytes meets; empty when they are well-formed XML 1.0. */
export function strictXmlErrors(bytes: Uint8Array): string[] {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    return [`not UTF-8: ${(error as Error).message}`];
  }
  const errors: string[] = [];
  const parser = new SaxesParser({ xmlns: true });
  parser.on('error', (e) => errors.push(e.message));
  parser.write(text).close();
  return errors;
}

/** Every XML part of a package (content types, relationships, parts), by name. */
export function xmlParts(docx: Uint8Array): Record<string, Uint8Array> {
  return Object.fromEntries(
    Object.entries(unzipSync(docx)).filter(([name]) => /\.(xml|rels|vml)$/i.test(name)),
  );
}

/** The XML parts of a package that a strict reading refuses, with the first error of each. */
export function strictFailures(docx: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, bytes] of Object.entries(xmlParts(docx))) {
    const errors = strictXmlErrors(bytes);
    if (errors.length > 0) out[name] = errors[0] ?? '';
  }
  return out;
}

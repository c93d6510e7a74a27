/**
 * The one text sanitizer for everything written into report.docx's XML. XML 1.0 allows only
 * the characters of its `Char` production (section 2.2): tab, line feed, carriage return,
 * U+0020–U+D7FF, U+E000–U+FFFD and the supplementary planes as surrogate pairs. A model's
 * reason, a reviewer's note, a name or the contract's own text can hold any other character (a
 * C0 control, U+FFFE, U+FFFF, half a surrogate pair), and xmldom's serializer writes them out
 * as they are: a strict parser, and Word, then refuse the whole part. Each such character
 * becomes U+FFFD, the replacement character: one UTF-16 unit for one, so the offsets into a
 * text stay where they were, and a reader sees that something was there, as a UTF-8 decoder
 * shows a byte it cannot read.
 */

/** What a character XML 1.0 forbids becomes. */
export const REPLACEMENT_CHARACTER = '\ufffd';

// A high surrogate not followed by a low one, a low surrogate not preceded by a high one, and
// the single units XML 1.0 leaves out.
const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: naming the forbidden control characters is the point.
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A numeric character reference, decimal or hexadecimal. */
const CHAR_REF = /&#(x[0-9a-fA-F]+|[0-9]+);/g;

/** Whether a code point is one XML 1.0's `Char` production allows. */
export function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/** `text` with every character XML 1.0 forbids replaced by U+FFFD; the same length. */
export function xmlSafe(text: string): string {
  return text.replace(FORBIDDEN, REPLACEMENT_CHARACTER);
}

/**
 * Whether serialised XML needs sanitizing: it holds a forbidden character, or a character
 * reference to one (`&#1;`, which a lenient parser reads and a strict one refuses).
 */
export function needsSanitizing(xml: string): boolean {
  FORBIDDEN.lastIndex = 0;
  if (FORBIDDEN.test(xml)) return true;
  for (const m of xml.matchAll(CHAR_REF)) {
    const ref = m[1] ?? '';
    const cp = ref.startsWith('x') ? Number.parseInt(ref.slice(1), 16) : Number.parseInt(ref, 10);
    if (!isXmlChar(cp)) return true;
  }
  return false;
}

const ELEMENT = 1;

/**
 * Makes every character data of a DOM tree XML-safe in place: text, CDATA, comments,
 * processing instructions and attribute values. Run on every part just before it is serialised,
 * so nothing written into the package escapes it.
 */
export function sanitizeTree(root: Node): void {
  // `textContent` sets a text's data and an attribute's value alike (and every field xmldom's
  // serializer reads).
  const clean = (node: Node, value: string) => {
    const safe = xmlSafe(value);
    if (safe !== value) node.textContent = safe;
  };
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.nodeType === ELEMENT) {
      const attrs = (node as Element).attributes;
      for (let i = 0; i < attrs.length; i++) {
        const attr = attrs.item(i);
        if (attr) clean(attr, attr.value);
      }
    } else if (node.nodeValue !== null) clean(node, node.nodeValue);
    for (let c = node.firstChild; c; c = c.nextSibling) stack.push(c);
  }
}

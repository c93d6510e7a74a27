import { WINDOWS_1252_C1 } from './windows-1252.js';

/**
 * Named character references: the Latin-1 set (HTML 4, which legal HTML from EDGAR and word
 * processors sticks to) plus the typographic ones contracts are full of. The full HTML5 table has
 * 2,000+ names that do not occur in contracts; an unknown name is left as written.
 */
const LATIN1_NAMES =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 ' +
  'acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde ' +
  'Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute ' +
  'Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde ' +
  'auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ' +
  'ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml';

const NAMED: ReadonlyMap<string, string> = new Map<string, string>([
  // U+00A0..U+00FF in order, so the name list above is the table.
  ...LATIN1_NAMES.split(' ').map((name, i): [string, string] => [name, String.fromCharCode(0xa0 + i)]),
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
  ['ndash', '\u2013'],
  ['mdash', '\u2014'],
  ['lsquo', '\u2018'],
  ['rsquo', '\u2019'],
  ['sbquo', '\u201a'],
  ['ldquo', '\u201c'],
  ['rdquo', '\u201d'],
  ['bdquo', '\u201e'],
  ['hellip', '\u2026'],
  ['bull', '\u2022'],
  ['dagger', '\u2020'],
  ['Dagger', '\u2021'],
  ['permil', '\u2030'],
  ['prime', '\u2032'],
  ['Prime', '\u2033'],
  ['lsaquo', '\u2039'],
  ['rsaquo', '\u203a'],
  ['euro', '\u20ac'],
  ['trade', '\u2122'],
  ['ensp', '\u2002'],
  ['emsp', '\u2003'],
  ['thinsp', '\u2009'],
  ['zwnj', '\u200c'],
  ['zwj', '\u200d'],
  ['lrm', '\u200e'],
  ['rlm', '\u200f'],
  ['OElig', '\u0152'],
  ['oelig', '\u0153'],
  ['Scaron', '\u0160'],
  ['scaron', '\u0161'],
  ['Yuml', '\u0178'],
  ['fnof', '\u0192'],
  ['circ', '\u02c6'],
  ['tilde', '\u02dc'],
  ['larr', '\u2190'],
  ['rarr', '\u2192'],
  ['le', '\u2264'],
  ['ge', '\u2265'],
  ['ne', '\u2260'],
  ['minus', '\u2212'],
  ['check', '\u2713'],
]);

function fromCodePoint(code: number): string {
  // What browsers do for numeric references to C1 controls: &#150; is the en dash authors meant.
  const mapped = WINDOWS_1252_C1[code] ?? code;
  // NUL, surrogates and out-of-range values are parse errors that browsers render as U+FFFD.
  if (mapped === 0 || mapped > 0x10ffff || (mapped >= 0xd800 && mapped <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(mapped);
}

/**
 * Decodes character references: named (`&amp;`, `&sect;`), decimal (`&#167;`) and hexadecimal
 * (`&#xA7;`). A reference must end with `;`; anything else is left as written, as is an unknown name.
 */
export function decodeHtmlEntities(text: string): string {
  return text.replace(
    /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));/g,
    (ref, dec, hex, name) => {
      if (dec !== undefined) return fromCodePoint(Number.parseInt(dec, 10));
      if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16));
      return NAMED.get(name as string) ?? ref;
    },
  );
}

/**
 * The windows-1252 characters at bytes 0x80-0x9F, where ISO-8859-1 has C1 controls. Browsers use
 * them for pages labelled latin1 or windows-1252, and for numeric references such as `&#150;`.
 */
export const WINDOWS_1252_C1: Readonly<Record<number, number>> = {
  128: 0x20ac,
  130: 0x201a,
  131: 0x0192,
  132: 0x201e,
  133: 0x2026,
  134: 0x2020,
  135: 0x2021,
  136: 0x02c6,
  137: 0x2030,
  138: 0x0160,
  139: 0x2039,
  140: 0x0152,
  142: 0x017d,
  145: 0x2018,
  146: 0x2019,
  147: 0x201c,
  148: 0x201d,
  149: 0x2022,
  150: 0x2013,
  151: 0x2014,
  152: 0x02dc,
  153: 0x2122,
  154: 0x0161,
  155: 0x203a,
  156: 0x0153,
  158: 0x017e,
  159: 0x0178,
};

/**
 * Decodes windows-1252 bytes. Node's TextDecoder maps 0x80-0x9F to C1 controls for this label
 * instead of the curly quotes and dashes the standard (and every browser) gives, so it is done here.
 */
export function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const codes = Array.from(bytes.subarray(i, i + 8192), (b) => WINDOWS_1252_C1[b] ?? b);
    out += String.fromCharCode(...codes);
  }
  return out;
}

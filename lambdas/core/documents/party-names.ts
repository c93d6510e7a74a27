/**
 * A party's name as the contract writes it, read from the words around the mark that defines
 * it: "Kiromic, Inc, a Delaware corporation" is "Kiromic, Inc"; "CHONGQING ZONGSHEN AUTOMOBILE
 * INDUSTRY CO., LTD., a company organized …" keeps both suffixes; "to retain Gianluca Rotino"
 * ends in the name. A name stops where a description of the party starts: a comma before
 * anything but a company suffix, "a"/"an", "having", "located", "of" before an address.
 */

/** Words that end a company's name and may follow it after a comma ("Kiromic, Inc"). */
const COMMA_SUFFIX =
  /^(?:inc|incorporated|corp|co|ltd|limited|llc|l\.l\.c|lp|l\.p|llp|l\.l\.p|lllp|plc|p\.l\.c|gmbh|ag|sa|s\.a|sas|s\.a\.s|spa|s\.p\.a|srl|s\.r\.l|nv|n\.v|bv|b\.v|kk|k\.k|ab|oy|oyj|a\/s|aps|pty|pte|ltda|n\.a|p\.c|pc|p\.a|s\.l|kft|se)\.?,?$/i;

/** Words that say a name is a company's, a trust's or a public body's. */
const ENTITY_WORD =
  /^(?:company|corporation|partnership|trust|bank|association|foundation|university|group|holdings|fund|authority|council|society|institute|agency|town|city|county|municipality|chapter|enterprises?|industries|technologies|systems|solutions|services|laboratories|pharmaceuticals?|gmbh|ag)[.,]?$/i;

/** Lowercase words a name may hold between its capitalised ones ("Bank of America", "d/b/a"). */
const CONNECTOR = new Set([
  'of',
  'and',
  'for',
  'the',
  'de',
  'du',
  'des',
  'del',
  'della',
  'la',
  'le',
  'von',
  'van',
  'der',
  'den',
  'y',
  'e',
  'et',
  'und',
  '&',
  '-',
  'd/b/a',
  'dba',
  'a/k/a',
  'f/k/a',
]);

/** Words that open a description of a party rather than continue its name. */
const STOP = new Set([
  'a',
  'an',
  'as',
  'having',
  'located',
  'with',
  'whose',
  'residing',
  'acting',
  'is',
  'are',
  'being',
  'which',
  'who',
  'organized',
  'organised',
  'incorporated',
  'existing',
  'hereinafter',
  'herein',
  'hereafter',
  'on',
  'at',
  'in',
  'by',
  'to',
  'from',
  'its',
  'his',
  'her',
  'their',
]);

interface Token {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** Words and the punctuation a name is delimited by, bold and italic markers (`**`, `__`) aside. */
function tokens(s: string): Token[] {
  return [...s.replace(/\*+|_{2,}/g, ' ').matchAll(/[^\s,;:()（）"“”]+|[,;:()（）"“”]/g)].map((m) => ({
    text: m[0],
    start: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
  }));
}

const isSuffix = (t: string) => COMMA_SUFFIX.test(t) || ENTITY_WORD.test(t);
/** Articles a name may start with ("The Right Solution", "A Seminole Indian Company"), never end with. */
const ARTICLE = /^(?:The|THE|A|An)$/;
const capitalised = (t: string) => /^[A-Z0-9]/.test(t);

/** Whether `tok` may continue a name already started. */
function continues(tok: string, next: Token | undefined): boolean {
  const lower = tok.toLowerCase();
  if (lower === 'of' && next && /^\d/.test(next.text)) return false;
  if (CONNECTOR.has(lower)) return true;
  if (capitalised(tok)) return !(tok === 'AND' && next?.text === ':');
  // "inc" continues "salesforce.com, inc"; a lowercase "corporation" describes ("a Delaware corporation").
  return COMMA_SUFFIX.test(tok);
}

/** The name a span starts with, or undefined when it starts with none. */
export function leadingName(s: string): string | undefined {
  const toks = tokens(s.replace(/^[\s,;:]*(?:(?:and|AND|And)\b[\s:]*)?(?:the\s+)?/, ''));
  const kept: Token[] = [];
  for (let i = 0; i < toks.length && kept.length < 16; i++) {
    const tok = toks[i] as Token;
    const next = toks[i + 1];
    if (next?.text === ':') break; // "ADD:", "Address:": a label, not the name
    if (tok.text === ',') {
      if (next && COMMA_SUFFIX.test(next.text) && kept.length > 0) {
        kept.push(tok);
        continue;
      }
      break;
    }
    if (/^[;:()（）"“”]$/.test(tok.text)) break;
    if (kept.length === 0) {
      const article = ARTICLE.test(tok.text) && !!next && capitalised(next.text);
      if (!article && (STOP.has(tok.text.toLowerCase()) || CONNECTOR.has(tok.text.toLowerCase()))) break;
      kept.push(tok);
      continue;
    }
    if (STOP.has(tok.text) || !continues(tok.text, next)) break;
    kept.push(tok);
  }
  return joined(kept);
}

/** Suffixes and initials whose period belongs to the name ("Inc.", "Co., Ltd.", "James E."). */
const KEEPS_PERIOD =
  /(?:^|\s)(?:[A-Z]|inc|corp|co|ltd|l\.l\.c|l\.p|n\.v|b\.v|s\.a|p\.c|n\.a|s\.r\.l|s\.p\.a|[a-z]\.[a-z]|plc|jr|sr)\.$/i;

/** The tokens as one name, without connectors, commas or articles at either end. */
function joined(kept: readonly Token[]): string | undefined {
  let from = 0;
  let to = kept.length;
  const loose = (t: Token | undefined) => !!t && (t.text === ',' || CONNECTOR.has(t.text));
  while (from < to && loose(kept[from])) from++;
  while (to > from && (loose(kept[to - 1]) || ARTICLE.test(kept[to - 1]?.text ?? ''))) to--;
  let name = kept
    .slice(from, to)
    .map((t) => t.text)
    .join(' ')
    .replace(/ ,/g, ',');
  if (name.endsWith('.') && !KEEPS_PERIOD.test(name)) name = name.slice(0, -1);
  return name.length >= 2 && /[A-Za-z]/.test(name) ? name : undefined;
}

/**
 * The name a span ends with, before any description that follows it ("Compass Point Research &
 * Trading, LLC, acting as agent"), or undefined when it ends with none.
 */
export function trailingName(s: string): string | undefined {
  const toks = tokens(s);
  let end = toks.length;
  // A trailing ", acting as agent": step back over the lowercase description after the last comma.
  const lastComma = toks.map((t) => t.text).lastIndexOf(',');
  const described = toks[lastComma + 1];
  if (lastComma > 0 && described && !capitalised(described.text) && !COMMA_SUFFIX.test(described.text))
    end = lastComma;
  const kept: Token[] = [];
  for (let i = end - 1; i >= 0 && kept.length < 16; i--) {
    const tok = toks[i] as Token;
    const next = kept[0];
    if (tok.text === ',') {
      if (next && COMMA_SUFFIX.test(next.text)) {
        kept.unshift(tok);
        continue;
      }
      break;
    }
    if (/^[;:()（）"“”]$/.test(tok.text) || STOP.has(tok.text) || !continues(tok.text, next)) break;
    kept.unshift(tok);
  }
  while (kept.length > 0 && !capitalised(kept[0]?.text ?? '')) kept.shift();
  return joined(kept);
}

/** A description that says the party is a company, a person or some other legal body. */
const DESCRIPTION =
  /\b(?:an?|the)\s+(?:[\w.'’-]+\s+){0,5}(?:corporation|company|partnership|limited|liability|individual|person|trust|entity|association|bank|organi[sz]ation|societe|société|cooperative|municipal|body|firm|gmbh|llc|subsidiary)\b|\bresiding\b|\bindividual\b/i;

/** A piece that describes a party rather than names one: "Delaware corporation having an address at …". */
const DESCRIBES =
  /^\s*(?:an?\s+)?(?:[A-Z][\w.'’-]*\s+){0,3}(?:corporation|company|limited|partnership|trust|entity|association|bank|statutory)\b/;

/** Whether a piece describes a party ("a Pfizer company, and Delaware corporation …") rather than names one. */
export function describesOnly(piece: string): boolean {
  return DESCRIBES.test(piece.replace(/^[\s,;:]+/, ''));
}

/** Whether a name, with the words that follow it, reads as a company's or a person's. */
export function looksLikeParty(name: string, after = ''): boolean {
  const words = name.split(/\s+/);
  return words.some((w) => isSuffix(w)) || DESCRIPTION.test(after.slice(0, 160));
}

/**
 * What kind of contract a document is, read the way a lawyer reads it: the title first ("GAS
 * FRANCHISE AGREEMENT"), then what the contract says of itself ("This Franchise Agreement …",
 * "the Members enter into a joint venture"), then, with nothing in the text, the file's name. A
 * title naming two kinds ("License and Services Agreement") gives the first as the kind and
 * both in `kinds`.
 *
 * Only the opening of the text is read ({@link TITLE_WINDOW} characters for a title,
 * {@link BODY_WINDOW} for the body's words), each by a forward scan.
 */
import { type ContractKind, kindLabel, kindsNamedIn } from './contract-kinds.js';

export {
  CONTRACT_KIND_IDS,
  CONTRACT_KINDS,
  type ContractKind,
  type KindSpec,
  kindLabel,
} from './contract-kinds.js';

/** Where a kind was read. */
export type KindSource = 'title' | 'body' | 'file-name';

/** The kind of a contract and where it was read. */
export interface ContractKindReading {
  /** The kind the title (or body, or file name) names first. */
  readonly kind?: ContractKind;
  /** Every kind the same words name, in their order. */
  readonly kinds: readonly ContractKind[];
  /** What a person reads: "Franchise Agreement". */
  readonly label?: string;
  readonly source?: KindSource;
  /** The words that gave the kind: "GAS FRANCHISE AGREEMENT", "This Franchise Agreement". */
  readonly words?: string;
  /** Where those words are in the text (none for a title passed in or a file name). */
  readonly at?: number;
  /** When no kind could be read: what was looked at, in plain words. */
  readonly problem?: string;
}

/** How much of the text's opening a title is looked for in. */
export const TITLE_WINDOW = 3_000;
/** How much of the text the body's description of itself is looked for in. */
export const BODY_WINDOW = 50_000;

/** A title in capitals: "EXECUTION VERSION NON-COMPETITION AND NON-SOLICITATION AGREEMENT". */
const CAPITAL_TITLE =
  /\b(?:(?!(?:AGREEMENT|CONTRACT|THIS)\b)[A-Z][A-Z&'’/-]*,?\s+){0,8}(?:AGREEMENT|CONTRACT|TERMS\s+AND\s+CONDITIONS|MEMORANDUM\s+OF\s+UNDERSTANDING|LEASE)\b/g;
/**
 * A short line that reads as a title ("Distributor Agreement", "General Terms and Conditions"),
 * not a sentence: it does not open with "This" or "The" and does not end with a full stop.
 */
const TITLE_LINE =
  /^(?![ \t]*(?:This|THIS|The|THE|WHEREAS)\b)[^\n]{0,120}\b(?:Agreement|Contract|Terms\s+and\s+Conditions|Lease)\b[^\n]{0,40}(?<![.;:,])$/gm;
/** "This Franchise Agreement", "THIS CONTENT LICENSE AGREEMENT": the contract naming itself. */
const SELF_NAMED =
  /\b(?:This|THIS|this)\s+((?:[A-Z][A-Za-z-]*,?\s+(?:(?:and|AND|&)\s+)?){1,7})(?:Agreement|AGREEMENT|Contract|CONTRACT)\b/g;
/** "the Members enter into a joint venture": what the contract says it makes. */
const MAKES =
  /\b(?:enter(?:s|ed)?\s+into|form(?:s|ed)?|establish(?:es|ed)?|constitutes?|creates?|is|shall\s+be)\s+(?:a|an)\s+(joint\s+venture|strategic\s+alliance|franchise|collaboration)\b/gi;
const NEGATION = /\b(?:not|no|nothing|neither|nor|never)\b/i;
/** A title passed in is believed only when it reads as one ("Source: PRECHECK HEALTH SERVICES, INC." does not). */
const TITLE_WORD =
  /\b(?:agreement|contract|terms|conditions|lease|deed|memorandum|addendum|amendment|licen[cs]e|letter|charter|protocol)\b/i;

interface Found {
  readonly kinds: readonly ContractKind[];
  readonly words: string;
  readonly at?: number;
}

/** The first title-like phrase or line in the text's opening that names a kind. */
function titleInText(text: string): Found | undefined {
  const head = text.slice(0, TITLE_WINDOW);
  const phrases = [...head.matchAll(CAPITAL_TITLE), ...head.matchAll(TITLE_LINE)].sort(
    (a, b) => (a.index ?? 0) - (b.index ?? 0),
  );
  for (const m of phrases) {
    const kinds = kindsNamedIn(m[0]);
    if (kinds.length > 0) return { kinds, words: m[0].replace(/\s+/g, ' ').trim(), at: m.index ?? 0 };
  }
  return undefined;
}

/** What the body says the contract is: "This Franchise Agreement", "enter into a joint venture". */
function bodyWords(text: string): Found | undefined {
  const body = text.slice(0, BODY_WINDOW);
  for (const m of body.matchAll(SELF_NAMED)) {
    const kinds = kindsNamedIn(m[1] ?? '');
    if (kinds.length > 0) return { kinds, words: m[0].replace(/\s+/g, ' '), at: m.index ?? 0 };
  }
  for (const m of body.matchAll(MAKES)) {
    const at = m.index ?? 0;
    // "Nothing in this Agreement shall create a joint venture" says what the contract is not.
    const sentence = body.slice(Math.max(0, body.lastIndexOf('.', at) + 1, at - 200), at);
    const kinds = kindsNamedIn(m[1] ?? '');
    if (!NEGATION.test(sentence) && kinds.length > 0) return { kinds, words: m[0].replace(/\s+/g, ' '), at };
  }
  return undefined;
}

/** The kinds a file's name gives: "…-EX-10_23-CONSULTING_AGREEMENT.txt". */
function fromFileName(fileName: string): Found | undefined {
  const words = fileName
    .replace(/^.*[\\/]/, '')
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/[_.]+/g, ' ');
  const kinds = kindsNamedIn(words);
  return kinds.length > 0 ? { kinds, words } : undefined;
}

/**
 * The kind of a contract, from its title, else its own words, else its file's name.
 *
 * @param text the contract's text
 * @param title its title where one was already read (the document context's); its opening is
 *   searched for one when this names no kind
 * @param fileName the uploaded file's name, read last
 * @example readContractKind('GAS FRANCHISE AGREEMENT\n\nTHIS AGREEMENT …').label // 'Franchise Agreement'
 */
export function readContractKind(text: string, title?: string, fileName?: string): ContractKindReading {
  const given = title && TITLE_WORD.test(title) ? kindsNamedIn(title) : [];
  const attempts: readonly [KindSource, () => Found | undefined][] = [
    [
      'title',
      () =>
        title && given.length > 0
          ? { kinds: given, words: title.replace(/\s+/g, ' ').trim() }
          : titleInText(text),
    ],
    ['body', () => bodyWords(text)],
    ['file-name', () => (fileName ? fromFileName(fileName) : undefined)],
  ];
  for (const [source, read] of attempts) {
    const found = read();
    const kind = found?.kinds[0];
    if (found && kind)
      return {
        kind,
        kinds: found.kinds,
        label: kindLabel(kind),
        source,
        words: found.words,
        ...(found.at !== undefined ? { at: found.at } : {}),
      };
  }
  return {
    kinds: [],
    problem:
      "No kind of contract could be read: neither the title, nor the contract's words about itself " +
      `("This … Agreement")${fileName ? ', nor the file name' : ''} name one.`,
  };
}

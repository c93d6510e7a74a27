/**
 * What every analyst should know about a contract before judging one of its clauses: its
 * title, its parties, and its defined terms. Clauses lean on capitalised terms ("Services",
 * "Losses", "Cap") whose meaning lives in a definitions section; a clause read without them is
 * easy to misjudge. The context goes into every call of a job as one shared block, which is
 * also what makes it cheap: it is the cacheable prefix of the prompt.
 */
import type { Clause } from '../clause.js';

/** The shared context of one contract. */
export interface DocumentContext {
  readonly title?: string;
  /** The sentence naming the parties. */
  readonly parties?: string;
  /** The definitions section(s), in document order. */
  readonly definitions: string;
  /**
   * More of the contract's own text in document order (recitals and opening clauses not among
   * the definitions), which the prompt draws on when the context is too short to be cached.
   */
  readonly more: string;
}

/** Most characters of definitions kept, about 6,000 tokens. */
export const MAX_DEFINITIONS_CHARS = 24_000;
/** Most characters kept for filling a short context. */
export const MAX_MORE_CHARS = 20_000;

const DEFINITIONS_HEADING = /\b(definitions?|defined terms|interpretation)\b/i;
/** `"Term" means …`, `“Term” shall have the meaning …`, `"Term" refers to …`. */
const DEFINITION =
  /["“][^"”\n]{2,80}["”]\s*(?:\([^)]*\)\s*)?(?:shall\s+)?(?:means?|has the meaning|have the meaning|shall have the meaning|refers? to|includes?)\b/i;
const PARTIES = /\b(?:by and )?between\b/i;

function titleOf(text: string): string | undefined {
  const lines = text
    .slice(0, 3000)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length >= 4 && l.length <= 150 && !/^exhibit\b/i.test(l));
  const letters = (l: string) => l.replace(/[^A-Za-z]/g, '');
  const upper = lines.find((l) => {
    const a = letters(l);
    return a.length >= 4 && a.replace(/[^A-Z]/g, '').length / a.length >= 0.8;
  });
  return upper ?? lines[0];
}

function partiesOf(text: string): string | undefined {
  const head = text.slice(0, 6000);
  const m = PARTIES.exec(head);
  if (!m) return undefined;
  const start = Math.max(head.lastIndexOf('\n', m.index) + 1, 0);
  const end = head.indexOf('\n', m.index);
  return head
    .slice(start, end < 0 ? undefined : end)
    .trim()
    .slice(0, 800);
}

/** True for a clause that defines terms: a definitions heading, or a `"Term" means` sentence. */
export function isDefinitionClause(clause: Pick<Clause, 'heading' | 'text'>): boolean {
  return (
    (clause.heading !== undefined && DEFINITIONS_HEADING.test(clause.heading)) ||
    DEFINITION.test(clause.text.slice(0, 400))
  );
}

/** Finds the title, parties and definitions of a contract from its text and clauses. */
export function findDocumentContext(text: string, clauses: readonly Clause[]): DocumentContext {
  const definitions: string[] = [];
  const more: string[] = [];
  let defChars = 0;
  let moreChars = 0;
  for (const clause of clauses) {
    if (isDefinitionClause(clause)) {
      if (defChars + clause.text.length > MAX_DEFINITIONS_CHARS) continue;
      definitions.push(clause.text);
      defChars += clause.text.length + 1;
    } else if (moreChars + clause.text.length <= MAX_MORE_CHARS) {
      more.push(clause.text);
      moreChars += clause.text.length + 1;
    }
  }
  const title = titleOf(text);
  const parties = partiesOf(text);
  return {
    ...(title ? { title } : {}),
    ...(parties ? { parties } : {}),
    definitions: definitions.join('\n'),
    more: more.join('\n'),
  };
}

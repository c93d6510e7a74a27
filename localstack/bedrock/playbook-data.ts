/**
 * A playbook's positions as a request carries them, and the words the stand-in reads a position
 * and a clause by: the positions' JSON block, the contract's names for the two sides, and light
 * word stems.
 */

/** The contract's names for the side the review is for and the other, as the request gives them. */
export interface RequestNames {
  readonly us: string;
  readonly them?: string;
}

/** A rung as a playbook position's data gives it. */
interface RungData {
  readonly position: string;
  readonly language: string;
  readonly threshold?: number;
}

/** A position as the request's playbook block carries it. */
export interface PositionData {
  readonly topic: string;
  readonly category: string;
  readonly question: string;
  readonly measure?: {
    readonly quantity: string;
    readonly unit: string;
    readonly direction: 'at-least' | 'at-most';
  };
  readonly standard: RungData;
  readonly fallbacks: readonly RungData[];
  readonly notAcceptable: readonly string[];
}

/** One position's answer, in the tool schema's shape. */
export interface PositionReply {
  rung: string;
  quotes: string[];
  reason: string;
  measured?: number | null;
  redline: {
    target: string;
    edits: { start: number; end: number; deleted: string; insert: string }[];
  } | null;
}

const PLAYBOOK_BLOCK = /<playbook-([0-9a-f]{8,64})>\n([\s\S]*?)\n<\/playbook-\1>/;

/** The positions a request's system blocks carry, or undefined when it has none. */
export function requestPositions(
  system: readonly Record<string, unknown>[] | undefined,
): PositionData[] | undefined {
  for (const block of system ?? []) {
    const text = typeof block.text === 'string' ? block.text : '';
    const m = PLAYBOOK_BLOCK.exec(text);
    if (!m) continue;
    try {
      const parsed = JSON.parse(m[2] ?? '') as unknown;
      if (Array.isArray(parsed)) return parsed as PositionData[];
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export const STOP = new Set(
  (
    'a an the and or of to in on for by with at as is are be been being this that these those it its any all ' +
    'no not nor we our us they their them may must shall will would can could should than then there which who ' +
    'whom what when where from into under over per each either neither both other such only if unless also more ' +
    'less least most up out within without before after so do does did has have had agreement contract clause ' +
    'party parties supplier customer we us our one two three position standard does is'
  ).split(' '),
);

/** A light stem: the first five letters, so "renews", "renewal" and "renewing" meet, as do "terminate" and "termination". */
export function stem(word: string): string {
  const w = word.toLowerCase();
  return w.length > 5 ? w.slice(0, 5) : w.replace(/s$/, '');
}

export function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.match(/[A-Za-z]+/g) ?? []) {
    if (w.length < 3 || STOP.has(w.toLowerCase())) continue;
    out.add(stem(w));
  }
  return out;
}

/** The stems that say what a position is about: its topic, question and standard position. */
export function topicStems(p: PositionData): Set<string> {
  return stems(`${p.topic.replace(/-/g, ' ')} ${p.question} ${p.standard.position}`);
}

/**
 * The words that are a topic's own among the positions of its category: those of its topic name
 * no sibling's name has ("breach" in termination-for-breach), else those of its question.
 */
export function ownStems(p: PositionData, siblings: readonly PositionData[]): string[] {
  const name = (q: PositionData) => stems(q.topic.replace(/-/g, ' '));
  const taken = new Set(siblings.flatMap((q) => [...name(q)]));
  const own = [...name(p)].filter((t) => !taken.has(t));
  if (own.length > 0) return own;
  const asked = new Set(siblings.flatMap((q) => [...stems(q.question)]));
  return [...stems(p.question)].filter((t) => !asked.has(t));
}

/** The share of a text's stems the clause's topic sentences hold. */
export function overlap(text: string, clause: Set<string>): number {
  const own = stems(text);
  if (own.size === 0) return 0;
  let shared = 0;
  for (const s of own) if (clause.has(s)) shared++;
  return shared / own.size;
}

const NAMES = /acts for: (.+?) \(the [a-z]+'s side\)(?:; the other party is ([^.\n]+?))?\. The positions/;

/** The contract's names for the two sides, as the request's playbook instructions give them. */
export function requestNames(
  system: readonly Record<string, unknown>[] | undefined,
): RequestNames | undefined {
  for (const block of system ?? []) {
    const text = typeof block.text === 'string' ? block.text : '';
    const m = NAMES.exec(text);
    if (m?.[1]) return { us: m[1], ...(m[2] ? { them: m[2] } : {}) };
  }
  return undefined;
}

/**
 * Two versions' clauses paired, paragraph by paragraph. The splitter joins a title, a bare
 * heading or a short lead-in to whichever clause follows it, so two versions that differ in one
 * clause can cut the clauses around it differently; their paragraphs (a clause's text between
 * blank lines) are the same wherever they were joined. Paragraphs whose words are the same
 * (numbers, spacing and quote styles aside) pair first, in order; what they show renumbered is
 * then read into references, and paragraphs the same but for those pair too; the rest pair by
 * the words they share (Dice's coefficient over their distinct words, candidates found through
 * an index of the rarer words, never by comparing every paragraph with every other). Pairs out
 * of order are moves: the longest run in order (a longest increasing subsequence) stays.
 */
import type { Clause } from '../clause.js';
import {
  clauseKey,
  labelCore,
  type Renumbering,
  renumberingOf,
  type Token,
  tokensOf,
} from './clause-tokens.js';

/** A paragraph of a clause: what two versions are aligned by. */
export interface Passage {
  /** The clause it is in, by index into its version's clauses. */
  readonly clause: number;
  /** Where it is in its version's normalised text. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** A passage of ours paired with one of theirs, by index into each version's passages. */
export interface PassagePair {
  readonly ours: number;
  readonly theirs: number;
  /** Their words are the same (numbers, spacing and quote styles aside). */
  readonly same: boolean;
  /** It is out of the order the other pairs keep: it was moved. */
  readonly moved: boolean;
}

/** How two versions correspond. */
export interface ClauseAlignment {
  /** Each version's passages, in text order. */
  readonly ours: readonly Passage[];
  readonly theirs: readonly Passage[];
  /** Pairs in their order. */
  readonly pairs: readonly PassagePair[];
  /** Our passages with no counterpart (deleted), and theirs (inserted), as indexes. */
  readonly deleted: readonly number[];
  readonly inserted: readonly number[];
  /** Numbers renumbered (bare, ours to theirs), as references are read. */
  readonly renumbering: Renumbering;
}

/** Shared words, as a share of both passages' words, at which two passages are one changed. */
export const MIN_SIMILARITY = 0.5;
/**
 * The share at which two passages left unpaired in the same place (between the same two pairs)
 * are one changed: their place speaks for them, so a paragraph rewritten in half its words is
 * read as edited, not as one deleted and another inserted.
 */
export const MIN_IN_PLACE_SIMILARITY = 0.25;
/** A word in more passages than this is too common to find candidates by. */
const COMMON_WORD = 60;
/** Candidates scored per passage. */
const CANDIDATES = 8;

/** A version's clauses as passages: each clause's text cut at its blank lines. */
export function passagesOf(clauses: readonly Clause[]): Passage[] {
  const out: Passage[] = [];
  for (const [clause, c] of clauses.entries()) {
    for (const m of c.text.matchAll(/[^\n]+(?:\n(?![ \t]*\n)[^\n]*)*/g)) {
      const text = m[0].trim();
      if (text === '') continue;
      const start = c.start + m.index + m[0].indexOf(text);
      out.push({ clause, start, end: start + text.length, text });
    }
  }
  return out;
}

interface Side {
  readonly passages: readonly Passage[];
  readonly tokens: Token[][];
  readonly keys: string[];
  readonly paired: Int32Array;
}

const sideOf = (passages: readonly Passage[]): Side => {
  const tokens = passages.map((p) => tokensOf(p.text));
  return { passages, tokens, keys: tokens.map(clauseKey), paired: new Int32Array(passages.length).fill(-1) };
};

/** Pairs our clauses' passages with theirs. */
export function alignClauses(ours: readonly Clause[], theirs: readonly Clause[]): ClauseAlignment {
  const a = sideOf(passagesOf(ours));
  const b = sideOf(passagesOf(theirs));
  pairSame(a, b);
  const renumbering = renumberingOf(labelPairs(a, b));
  if (renumbering.size > 0) {
    // Read again with the new numbers in references: only the passages still unpaired.
    for (let o = 0; o < a.passages.length; o++) {
      if ((a.paired[o] ?? -1) >= 0) continue;
      a.tokens[o] = tokensOf(a.passages[o]?.text ?? '', renumbering);
      a.keys[o] = clauseKey(a.tokens[o] ?? []);
    }
    pairSame(a, b);
  }
  pairSimilar(a, b);
  pairInPlace(a, b);
  const order = inOrder(b);
  const pairs: PassagePair[] = [];
  for (let t = 0; t < b.passages.length; t++) {
    const o = b.paired[t] ?? -1;
    if (o >= 0) pairs.push({ ours: o, theirs: t, same: a.keys[o] === b.keys[t], moved: !order.has(t) });
  }
  return {
    ours: a.passages,
    theirs: b.passages,
    pairs,
    deleted: [...a.paired.keys()].filter((o) => (a.paired[o] ?? -1) < 0),
    inserted: [...b.paired.keys()].filter((t) => (b.paired[t] ?? -1) < 0),
    renumbering: renumberingOf(labelPairs(a, b)),
  };
}

/** Pairs passages with equal keys, each of ours with the first of theirs in order. */
function pairSame(a: Side, b: Side): void {
  const waiting = new Map<string, number[]>();
  for (let o = 0; o < a.keys.length; o++) {
    if ((a.paired[o] ?? -1) >= 0) continue;
    const key = a.keys[o] ?? '';
    const list = waiting.get(key);
    if (list) list.push(o);
    else waiting.set(key, [o]);
  }
  for (let t = 0; t < b.keys.length; t++) {
    if ((b.paired[t] ?? -1) >= 0) continue;
    const o = waiting.get(b.keys[t] ?? '')?.shift();
    if (o === undefined) continue;
    a.paired[o] = t;
    b.paired[t] = o;
  }
}

function* labelPairs(a: Side, b: Side): Generator<[string | undefined, string | undefined]> {
  for (let o = 0; o < a.passages.length; o++) {
    const t = a.paired[o] ?? -1;
    if (t >= 0) yield [labelOf(a, o), labelOf(b, t)];
  }
}

/** The number a passage starts with (its first label word), as written. */
function labelOf(side: Side, i: number): string | undefined {
  const text = side.passages[i]?.text ?? '';
  const label = (side.tokens[i] ?? []).slice(0, 2).find((t) => t.label);
  return label ? labelCore(text.slice(label.start, label.end)) : undefined;
}

/**
 * Pairs the passages still unpaired by the words they share: for each of theirs, the ours with
 * the most rare words in common are scored, and the best scores pair first. A candidate between
 * the same two pairs in order as the passage gets a little more, so an edited passage pairs with
 * itself rather than with a like one elsewhere.
 */
function pairSimilar(a: Side, b: Side): void {
  const words = (side: Side, i: number) =>
    new Set((side.tokens[i] ?? []).filter((t) => !t.label).map((t) => t.key));
  const open = (side: Side) => [...side.paired.keys()].filter((i) => (side.paired[i] ?? -1) < 0);
  const ours = open(a);
  const theirs = open(b);
  if (ours.length === 0 || theirs.length === 0) return;
  const ourWords = new Map(ours.map((o) => [o, words(a, o)]));
  const index = new Map<string, number[]>();
  for (const [o, set] of ourWords)
    for (const w of set) {
      const list = index.get(w);
      if (list) list.push(o);
      else index.set(w, [o]);
    }
  const gapA = gaps(a);
  const gapB = gaps(b);
  const scored: { score: number; o: number; t: number }[] = [];
  for (const t of theirs) {
    const set = words(b, t);
    const hits = new Map<number, number>();
    for (const w of set) {
      const list = index.get(w);
      if (!list || list.length > COMMON_WORD) continue;
      for (const o of list) hits.set(o, (hits.get(o) ?? 0) + 1);
    }
    const best = [...hits].sort((x, y) => y[1] - x[1]).slice(0, CANDIDATES);
    for (const [o] of best) {
      const other = ourWords.get(o) ?? new Set<string>();
      let shared = 0;
      for (const w of set) if (other.has(w)) shared++;
      const dice = (2 * shared) / Math.max(1, set.size + other.size);
      if (dice >= MIN_SIMILARITY) scored.push({ score: dice + (gapA[o] === gapB[t] ? 0.05 : 0), o, t });
    }
  }
  scored.sort((x, y) => y.score - x.score || x.t - y.t || x.o - y.o);
  for (const { o, t } of scored) {
    if ((a.paired[o] ?? -1) >= 0 || (b.paired[t] ?? -1) >= 0) continue;
    a.paired[o] = t;
    b.paired[t] = o;
  }
}

/** The distinct words of a passage, its numbers left out. */
const wordsOf = (side: Side, i: number) =>
  new Set((side.tokens[i] ?? []).filter((t) => !t.label).map((t) => t.key));

/**
 * Pairs, in order, the passages still unpaired that stand in the same place on both sides (the
 * same stretch between pairs) and share at least {@link MIN_IN_PLACE_SIMILARITY} of their words.
 */
function pairInPlace(a: Side, b: Side): void {
  const gapA = gaps(a);
  const gapB = gaps(b);
  for (let t = 0; t < b.passages.length; t++) {
    if ((b.paired[t] ?? -1) >= 0) continue;
    const theirs = wordsOf(b, t);
    for (let o = 0; o < a.passages.length; o++) {
      if ((a.paired[o] ?? -1) >= 0 || gapA[o] !== gapB[t]) continue;
      const ours = wordsOf(a, o);
      let shared = 0;
      for (const w of theirs) if (ours.has(w)) shared++;
      if ((2 * shared) / Math.max(1, theirs.size + ours.size) < MIN_IN_PLACE_SIMILARITY) continue;
      a.paired[o] = t;
      b.paired[t] = o;
      break;
    }
  }
}

/**
 * For each passage, the number of the stretch it is in between passages paired so far (on both
 * sides the same for a passage and its counterpart in place).
 */
function gaps(side: Side): Int32Array {
  const out = new Int32Array(side.paired.length);
  let gap = 0;
  for (let i = 0; i < side.paired.length; i++) {
    if ((side.paired[i] ?? -1) >= 0) gap++;
    out[i] = gap;
  }
  return out;
}

/**
 * Their passages whose pairs keep the order: the longest increasing run of our indexes taken in
 * their order (patience sorting, O(n log n)).
 */
function inOrder(b: Side): Set<number> {
  const ts: number[] = [];
  for (let t = 0; t < b.paired.length; t++) if ((b.paired[t] ?? -1) >= 0) ts.push(t);
  const tails: number[] = [];
  const back = new Int32Array(ts.length).fill(-1);
  for (let i = 0; i < ts.length; i++) {
    const o = b.paired[ts[i] ?? 0] ?? 0;
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((b.paired[ts[tails[mid] ?? 0] ?? 0] ?? 0) < o) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) back[i] = tails[lo - 1] ?? -1;
    tails[lo] = i;
  }
  const keep = new Set<number>();
  for (let i = tails[tails.length - 1] ?? -1; i >= 0; i = back[i] ?? -1) keep.add(ts[i] ?? 0);
  return keep;
}

/**
 * What the pipeline makes sure of every proposed redline, whatever the model answered: its
 * inserted text and the playbook's language beside it are in the contract's own names and terms;
 * a redline naming a party the contract does not have is withheld, not written; each says where its
 * language came from (`source`) and whether it changes the clause's own words or appends to it
 * (`shape`); and each position gets one redline in the document, on the clause where the smallest
 * edit reaches the rung, the other clauses that reach the same position pointing to it.
 */
import { applyEdits, type RedlineEdit } from '../../text/redline-edits.js';
import {
  type ContractTerms,
  type ContractType,
  type PlaybookReview,
  type PositionFinding,
  type ProposedRedline,
  type RedlineShape,
  type RedlineSource,
  renderInContractTerms,
  termsOfText,
  type WithheldRedline,
} from '../playbooks/index.js';
import type { Playbook, Position, RequiredClause } from '../playbooks/schema.js';
import type { ReportClause } from '../report-types.js';
import type { Job } from '../state/job.js';

/**
 * The contract's terms for a review against `playbook`: its text, and the two sides the job
 * recorded (none when its parties were not read, so role words it does not use stay foreign).
 */
export function contractTermsOf(
  job: Pick<Job, 'parties'>,
  playbook: Pick<Playbook, 'party'>,
  text: string,
): ContractTerms {
  const { us, them } = job.parties ?? {};
  return termsOfText(text, {
    party: playbook.party,
    ...(us ? { us: { term: us.term } } : {}),
    ...(them ? { them: { term: them.term } } : {}),
  });
}

/** An insertion this long, with nothing of the clause deleted, adds language rather than edits words. */
export const APPENDED_CHARS = 80;

/** The language of every rung of a topic: the standard first, then the fallbacks. */
function rungLanguages(playbook: Playbook, topic: string): { languages: string[]; thresholds: number[] } {
  const p: Position | undefined = playbook.positions.find((x) => x.topic === topic);
  if (p) {
    const rungs = [p.standard, ...p.fallbacks];
    return {
      languages: rungs.map((r) => r.language),
      thresholds: rungs.flatMap((r) => (r.threshold !== undefined ? [r.threshold] : [])),
    };
  }
  const r: RequiredClause | undefined = playbook.requiredClauses.find((x) => x.topic === topic);
  return { languages: r ? [r.language] : [], thresholds: [] };
}

/** Text as compared for its source: case, quotes, articles and spacing aside. */
const loose = (s: string) =>
  s
    .toLowerCase()
    .replace(/[“”"‘’']/g, '')
    .replace(/\bthe\s+/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** Digits a text states ("thirty (30) days" → 30). */
const numbersIn = (s: string) => (s.match(/\d+(?:\.\d+)?/g) ?? []).map(Number);

/**
 * Whether every inserted text comes from the playbook: a passage of one of the topic's rungs, or
 * a short quantity whose number is one of the rungs' thresholds.
 */
export function sourceOf(
  edits: readonly RedlineEdit[],
  languages: readonly string[],
  thresholds: readonly number[],
): RedlineSource {
  const bodies = languages.map(loose);
  for (const e of edits) {
    const inserted = loose(e.insert);
    if (inserted === '' || bodies.some((b) => b.includes(inserted))) continue;
    const numbers = numbersIn(e.insert);
    const quantity = e.insert.length <= 40 && !/[.;:]\s/.test(e.insert);
    if (quantity && numbers.length > 0 && numbers.every((n) => thresholds.includes(n))) continue;
    return 'model';
  }
  return 'playbook';
}

/** `appended` when the edits delete nothing and insert a sentence's worth or more. */
export function shapeOf(edits: readonly RedlineEdit[]): RedlineShape {
  const deletes = edits.some((e) => e.end > e.start);
  const inserted = edits.reduce((n, e) => n + e.insert.trim().length, 0);
  return !deletes && inserted >= APPENDED_CHARS ? 'appended' : 'in-place';
}

/** A redline in the contract's terms, or why it is withheld. */
function vetOne(
  clause: Pick<ReportClause, 'id' | 'text'>,
  redline: ProposedRedline,
  playbook: Playbook,
  terms: ContractTerms | undefined,
): ProposedRedline | WithheldRedline {
  const render = (s: string) =>
    terms ? renderInContractTerms(s, terms) : { text: s, foreign: [], rewritten: [] };
  const foreign = new Set<string>();
  const rewritten: { from: string; to: string }[] = [];
  const edits = redline.edits.map((e) => {
    const r = render(e.insert);
    for (const f of r.foreign) foreign.add(f);
    rewritten.push(...r.rewritten);
    return { ...e, insert: r.text };
  });
  if (foreign.size > 0) {
    return {
      id: redline.id,
      clauseId: clause.id,
      topic: redline.topic,
      reason: 'foreign-party',
      detail: `its text names ${[...foreign].map((f) => `"${f}"`).join(', ')}, a party this contract does not have`,
    };
  }
  const rungs = rungLanguages(playbook, redline.topic);
  const languages = rungs.languages.map((l) => render(l).text);
  const { rewritten: _, ...rest } = redline;
  return {
    ...rest,
    edits,
    language: render(redline.language).text,
    source: sourceOf(edits, languages, rungs.thresholds),
    shape: shapeOf(edits),
    text: applyEdits(clause.text, edits),
    ...(rewritten.length > 0 ? { rewritten } : {}),
  };
}

const isWithheld = (x: ProposedRedline | WithheldRedline): x is WithheldRedline => 'reason' in x;

/** A redline that would bolt the standard onto a clause already at a fallback, withheld instead. */
function appendedToAcceptable(
  f: PositionFinding,
  r: ProposedRedline | WithheldRedline,
): ProposedRedline | WithheldRedline {
  if (isWithheld(r) || r.shape !== 'appended' || f.rung !== 'fallback') return r;
  return {
    id: r.id,
    clauseId: r.clauseId,
    topic: r.topic,
    reason: 'appended-to-acceptable',
    detail: `the clause already reaches fallback ${f.fallback ?? 1}, which the playbook accepts; the standard's language would only be appended to it`,
  };
}

/**
 * A redline that would append the playbook's language to a contract the playbook was not written
 * for (`contractType.covered` false), withheld instead: only edits of the clause's own words go in.
 */
function appendedToUncovered(
  r: ProposedRedline | WithheldRedline,
  contractType: ContractType | undefined,
): ProposedRedline | WithheldRedline {
  if (isWithheld(r) || r.shape !== 'appended' || contractType?.covered !== false) return r;
  const kind = contractType.kind?.label.toLowerCase() ?? `${contractType.type} contract`;
  const covers = contractType.covers?.join(', ');
  return {
    id: r.id,
    clauseId: r.clauseId,
    topic: r.topic,
    reason: 'appended-to-uncovered-type',
    detail: `the playbook's language is written for ${covers ? `${covers} contracts` : 'other contracts'}, not a ${kind}; only an edit of the clause's own words would be proposed`,
  };
}

const depth = (f: PositionFinding) =>
  f.rung === 'standard' ? 0 : f.rung === 'fallback' ? (f.fallback ?? 1) : 4;

/**
 * Which of two findings' redlines answers a position for the document: an in-place edit before
 * appended language, the playbook's language before the model's, the clause furthest below the
 * standard, then the first in the document.
 */
function better(a: { f: PositionFinding; at: number }, b: { f: PositionFinding; at: number }): boolean {
  const rank = (r: ProposedRedline | undefined) =>
    (r?.shape === 'in-place' ? 0 : 2) + (r?.source === 'playbook' ? 0 : 1);
  return (rank(a.f.redline) - rank(b.f.redline) || depth(b.f) - depth(a.f) || a.at - b.at) < 0;
}

/**
 * The clauses with their redlines vetted, and the redlines withheld. `terms` are the contract's
 * (absent when its parties could not be read: the playbook's words stay, and any redline whose
 * text names a role the contract does not use is withheld all the same, `terms` or not);
 * `contractType` the type the review took, whose `covered: false` keeps appended language out.
 */
export function vetRedlines(
  clauses: readonly ReportClause[],
  playbook: Playbook,
  terms: ContractTerms | undefined,
  contractType?: ContractType,
): { clauses: ReportClause[]; withheld: WithheldRedline[] } {
  const withheld: WithheldRedline[] = [];
  const vetted = clauses.map((c) => {
    if (!c.positions?.some((p) => p.redline)) return c;
    const positions = c.positions.map((f) => {
      if (!f.redline) return f;
      const r = appendedToUncovered(
        appendedToAcceptable(f, vetOne(c, f.redline, playbook, terms)),
        contractType,
      );
      if (!isWithheld(r)) return { ...f, redline: r };
      withheld.push(r);
      const { redline: _, ...rest } = f;
      return rest;
    });
    return { ...c, positions };
  });
  return { clauses: onePerPosition(vetted).map((c) => (c.positions ? oneEditOnce(c) : c)), withheld };
}

/**
 * One edit once per clause: where two positions of a clause propose the very same edits (one
 * one-sided term made mutual answers both), the first keeps its redline and the other points to it.
 */
function oneEditOnce(c: ReportClause): ReportClause {
  const seen = new Map<string, string>();
  const positions = (c.positions ?? []).map((f) => {
    if (!f.redline) return f;
    const key = JSON.stringify(f.redline.edits);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, f.redline.id);
      return f;
    }
    const { redline: _, ...rest } = f;
    return { ...rest, sharedRedline: first };
  });
  return { ...c, positions };
}

/** One redline per position: the best is kept, every other clause's finding points to it. */
function onePerPosition(clauses: readonly ReportClause[]): ReportClause[] {
  const best = new Map<string, { f: PositionFinding; at: number }>();
  clauses.forEach((c, at) => {
    for (const f of c.positions ?? []) {
      if (!f.redline) continue;
      const seen = best.get(f.topic);
      if (!seen || better({ f, at }, seen)) best.set(f.topic, { f, at });
    }
  });
  return clauses.map((c) => {
    if (!c.positions?.some((p) => p.redline)) return c;
    const positions = c.positions.map((f) => {
      const kept = best.get(f.topic)?.f.redline;
      if (!f.redline || !kept || kept.id === f.redline.id) return f;
      const { redline: _, ...rest } = f;
      return { ...rest, sharedRedline: kept.id };
    });
    return { ...c, positions };
  });
}

/**
 * The review over the document in the contract's terms: each missing required clause's language
 * rendered as a redline's is, and the redlines withheld listed.
 */
export function inContractTerms(
  review: PlaybookReview,
  terms: ContractTerms,
  withheld: readonly WithheldRedline[],
): PlaybookReview {
  return {
    ...review,
    missing: review.missing.map((m) => ({ ...m, language: renderInContractTerms(m.language, terms).text })),
    ...(withheld.length > 0 ? { withheld } : {}),
  };
}

/**
 * What the contract view computes without touching the page: the clauses kept in document
 * order as chunks arrive, the filters, and the parts of a clause's text its quotes cover.
 */
import type { ReportClause, Risk } from '../core/report-types.js';

/** Risks, highest first. */
export const RISKS: readonly Risk[] = ['critical', 'high', 'medium', 'low', 'none'];

/** A clause's risk as the filters and styles name it (`none` for a clause without one). */
export const riskOf = (clause: Pick<ReportClause, 'risk'>): Risk => clause.risk ?? 'none';

/** The filters of the contract view; an empty set or undefined means "any". */
export interface ClauseFilter {
  readonly risks: ReadonlySet<Risk>;
  readonly category?: string;
  readonly analyst?: string;
}

/** Whether a clause passes the filters: its risk is chosen, and a finding has the category and analyst. */
export function matches(clause: ReportClause, filter: ClauseFilter): boolean {
  if (filter.risks.size > 0 && !filter.risks.has(riskOf(clause))) return false;
  if (!filter.category && !filter.analyst) return true;
  return clause.findings.some(
    (f) =>
      (!filter.category || f.category === filter.category) &&
      (!filter.analyst || f.analysts.includes(filter.analyst)),
  );
}

/** The categories and analysts the held clauses' findings name, sorted: the filters' choices. */
export function facets(clauses: readonly ReportClause[]): { categories: string[]; analysts: string[] } {
  const categories = new Set<string>();
  const analysts = new Set<string>();
  for (const c of clauses) {
    for (const f of c.findings) {
      categories.add(f.category);
      for (const a of f.analysts) analysts.add(a);
    }
  }
  return { categories: [...categories].sort(), analysts: [...analysts].sort() };
}

/** A stretch of a clause's text, quoted by findings of `categories` or not quoted at all. */
export interface Segment {
  readonly text: string;
  readonly categories: readonly string[];
}

/**
 * The clause's text cut where quotes begin and end. A finding's offsets index the document's
 * normalised text; a quote whose offsets do not land on it inside the clause is looked up by
 * its words instead, and left out when it is not there.
 */
export function segments(clause: Pick<ReportClause, 'text' | 'start' | 'findings'>): Segment[] {
  const spans: { from: number; to: number; category: string }[] = [];
  for (const f of clause.findings) {
    if (!f.quote) continue;
    let from = f.start - clause.start;
    if (clause.text.slice(from, from + f.quote.length) !== f.quote) from = clause.text.indexOf(f.quote);
    if (from < 0) continue;
    spans.push({ from, to: from + f.quote.length, category: f.category });
  }
  const cuts = new Set<number>([0, clause.text.length]);
  for (const s of spans) {
    cuts.add(s.from);
    cuts.add(s.to);
  }
  const points = [...cuts].sort((a, b) => a - b);
  const out: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const from = points[i] ?? 0;
    const to = points[i + 1] ?? 0;
    const categories = [...new Set(spans.filter((s) => s.from <= from && s.to >= to).map((s) => s.category))];
    const last = out.at(-1);
    if (last && last.categories.join() === categories.join()) {
      out[out.length - 1] = { text: last.text + clause.text.slice(from, to), categories };
    } else out.push({ text: clause.text.slice(from, to), categories });
  }
  return out;
}

/**
 * `npm run bench -- --only playbook`: what reviewing against a playbook does to a contract's
 * calls and cost. For the README sample and the largest contract (Verizon), the quote intake
 * computes (the same requests the calls send) without a playbook, with `default` (its contract
 * type read from the title or file name, or the full panel kept), and with `nda`; then one run
 * of the sample against `default` through the local pipeline, its cost as billed beside its quote.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { ANALYST_IDS } from '../../lambdas/core/analysts/index.js';
import { parseDocument } from '../../lambdas/core/documents/index.js';
import { quoteDocument } from '../../lambdas/core/intake/quote.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { type Playbook, shippedPlaybooks } from '../../lambdas/core/playbooks/index.js';
import { runCostBench } from './cost.js';

/** One way of reviewing a contract, as the quote prices it. */
export interface PlaybookQuoteRow {
  readonly review: string;
  readonly contractType?: string;
  readonly analysts: number;
  readonly calls: number;
  readonly callsNotAsked: number;
  readonly expectedMicros: number;
  readonly worstCaseMicros: number;
}

const playbook = (name: string) =>
  shippedPlaybooks().find((p) => p.playbook.name === name)?.playbook as Playbook;

/** The quote of one contract without a playbook, and with each shipped one. */
export async function playbookQuotes(file: string): Promise<PlaybookQuoteRow[]> {
  const bytes = readFileSync(file);
  const doc = await parseDocument(bytes, {
    key: basename(file),
    maxBytes: 10 * 1024 * 1024,
    chunk: { maxClauses: 8 },
  });
  const base = { analysts: ANALYST_IDS, models: { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID } };
  const ways: { review: string; options: object; against?: Playbook }[] = [
    { review: 'no playbook', options: {} },
    { review: 'default', options: {}, against: playbook('default') },
    { review: 'default --all-analysts', options: { allAnalysts: true }, against: playbook('default') },
    { review: 'nda', options: {}, against: playbook('nda') },
  ];
  return ways.map(({ review, options, against }) => {
    const q = quoteDocument(
      doc,
      { ...base, ...options },
      against ? { playbook: against, fileName: basename(file) } : undefined,
    );
    const analysts = q.panel?.analysts.length ?? ANALYST_IDS.length;
    return {
      review,
      ...(q.panel?.contractType
        ? { contractType: `${q.panel.contractType.type} (${q.panel.contractType.source})` }
        : {}),
      analysts,
      calls: doc.clauses.length * analysts,
      callsNotAsked: q.quote.notAsked?.calls ?? 0,
      expectedMicros: q.quote.expectedMicros,
      worstCaseMicros: q.quote.worstCaseMicros,
    };
  });
}

const usd = (micros: number) => `$${(micros / 1e6).toFixed(2)}`;

export function formatPlaybookQuotes(name: string, rows: readonly PlaybookQuoteRow[]): string {
  const base = rows[0];
  return [
    `${name}`,
    `  ${'review'.padEnd(24)} ${'contract type'.padEnd(22)} analysts  calls   not asked  expected  worst case  vs no playbook`,
    ...rows.map(
      (r) =>
        `  ${r.review.padEnd(24)} ${(r.contractType ?? '-').padEnd(22)} ${String(r.analysts).padStart(8)}  ${String(r.calls).padStart(5)}  ${String(r.callsNotAsked).padStart(10)}  ${usd(r.expectedMicros).padStart(8)}  ${usd(r.worstCaseMicros).padStart(10)}  ${base ? `${(((r.expectedMicros - base.expectedMicros) / base.expectedMicros) * 100).toFixed(0).padStart(5)} %` : ''}`,
    ),
  ].join('\n');
}

/** One run of `file` against the `default` playbook through the local pipeline. */
export async function runPlaybookCostRun(file: string, log: (line: string) => void): Promise<string> {
  const r = await runCostBench(file, log, { playbook: 'default' });
  const review = r.report.playbookReview;
  const findings = r.report.clauses.flatMap((c) => c.positions ?? []);
  return [
    `${basename(file)} against 'default' (${review?.contractType?.type ?? 'every topic'}), through the local pipeline:`,
    `  calls ${r.calls.toLocaleString('en-US')}, not asked ${r.report.coverage.callsNotAsked ?? 0}; quote ${r.quote ? `${usd(r.quote.expectedMicros)} expected, ${usd(r.quote.worstCaseMicros)} worst case` : 'none'}; actual ${usd(r.actualMicros)}`,
    `  tokens: uncached input / cache read / cache write / output   ${[r.tokens.input, r.tokens.cacheRead, r.tokens.cacheWrite, r.tokens.output].map((n) => n.toLocaleString('en-US')).join(' / ')}`,
    `  position findings ${findings.length}, redlines ${findings.filter((f) => f.redline).length} (placed ${review?.docx?.placed.length ?? 0}), required clauses missing ${review?.missing.length ?? 0}, escalations ${review?.escalations.length ?? 0}`,
  ].join('\n');
}

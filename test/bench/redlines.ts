/**
 * The redline bench: the development set reviewed with `--playbook default` by the command a
 * user runs (`clause-review review`, the embedded local stack, the offline learned analyst), then
 * what its redlines came to, read from each report.json and report.docx as a lawyer would meet
 * them:
 *
 * - insertions per contract, and the share of redlines that change a clause's own words
 *   (`in-place`) against those that add a sentence or more (`appended`);
 * - the share drafted by the model rather than taken from the playbook's rungs;
 * - inserted text naming a party role (Customer, Supplier, Licensee, …) the contract never uses;
 * - the same inserted text twice in one document;
 * - 200+ characters inserted into a clause's own paragraph with nothing of it deleted, and the
 *   required clauses inserted as paragraphs of their own;
 * - rejecting every change of report.docx gives the contract's text back.
 *
 *   npm run bench -- --only redlines          (or: tsx test/bench/redlines.ts [DIR] [--limit N])
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { strFromU8, unzipSync } from 'fflate';
import { reportDirName } from '../../bin/commands/review.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { changeMarks, rejectChanges, wordText } from '../helpers/tracked-changes.js';
import { DEV_SET } from './contract-facts.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const ROOT = new URL('../..', import.meta.url).pathname;

/** The role words a playbook's language could carry into a contract that has other parties. */
const ROLES = [
  'Customer',
  'Client',
  'Buyer',
  'Purchaser',
  'Licensee',
  'Licensor',
  'Franchisee',
  'Franchisor',
  'Distributor',
  'Reseller',
  'Supplier',
  'Vendor',
  'Seller',
  'Provider',
  'Contractor',
  'Consultant',
  'Manufacturer',
];

/** What one contract's redlines came to. */
export interface ContractRedlines {
  readonly name: string;
  readonly contractType: string;
  readonly covered: boolean;
  readonly reviewedFor: string;
  readonly redlines: number;
  readonly inPlace: number;
  readonly modelDrafted: number;
  readonly withheld: number;
  /** Tracked insertions in report.docx (text runs, not paragraph marks). */
  readonly insertions: number;
  readonly requiredInserted: number;
  readonly appended200: number;
  readonly foreignRoles: readonly string[];
  readonly repeats: number;
  readonly rejectAllIsOriginal: boolean;
}

const words = (s: string) => s.replace(/\s+/g, ' ').trim();
const has = (text: string, word: string) => new RegExp(`\\b${word}\\b`).test(text);

/** Reads one review's outputs against the contract it reviewed. */
export function readRedlines(name: string, reportDir: string, contractText: string): ContractRedlines {
  const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as Report;
  const review = report.playbookReview;
  const redlines = report.clauses.flatMap((c) =>
    (c.positions ?? []).flatMap((p) => (p.redline ? [p.redline] : [])),
  );
  const xml = strFromU8(
    unzipSync(readFileSync(join(reportDir, 'report.docx')))['word/document.xml'] as Uint8Array,
  );
  const doc = new DOMParser().parseFromString(xml, 'text/xml') as unknown as Document;
  const marks = changeMarks(doc).filter((m) => (m.author ?? '').startsWith('clause-review'));
  const inserted = marks.filter((m) => m.kind === 'ins' && !m.paragraphMark);
  const texts = inserted.map((m) => m.element.textContent ?? '');
  let appended200 = 0;
  for (const m of inserted) {
    let p: Node | null = m.element;
    while (p && (p as Element).localName !== 'p') p = p.parentNode;
    const para = p as Element;
    // A paragraph of its own: nothing in it but inserted text (its mark or its neighbour's inserted).
    const ownParagraph = Array.from(para.getElementsByTagNameNS(W, 't')).every((t) => {
      for (let up: Node | null = t; up && up !== para; up = up.parentNode) {
        if ((up as Element).localName === 'ins') return true;
      }
      return (t.textContent ?? '').trim() === '';
    });
    const deletes = para.getElementsByTagNameNS(W, 'del').length > 0;
    if ((m.element.textContent ?? '').length >= 200 && !ownParagraph && !deletes) appended200++;
  }
  const original = words(contractText);
  const foreign = new Set<string>();
  for (const t of texts)
    for (const role of ROLES) if (has(t, role) && !has(original, role)) foreign.add(role);
  const long = texts.map(words).filter((t) => t.length >= 40);
  rejectChanges(doc, [...new Set(marks.map((m) => m.author ?? ''))]);
  const parties = report.job.parties;
  return {
    name,
    contractType: review?.contractType?.type ?? '-',
    covered: review?.contractType?.covered !== false,
    reviewedFor: parties?.us ? parties.us.term : parties?.problem ? 'not read' : '-',
    redlines: redlines.length,
    inPlace: redlines.filter((r) => r.shape === 'in-place').length,
    modelDrafted: redlines.filter((r) => r.source === 'model').length,
    withheld: review?.withheld?.length ?? 0,
    insertions: inserted.length,
    requiredInserted: review?.docx?.inserted?.length ?? 0,
    appended200,
    foreignRoles: [...foreign],
    repeats: long.length - new Set(long).size,
    rejectAllIsOriginal: words(wordText(doc)) === original,
  };
}

const pct = (n: number, d: number) => (d === 0 ? '-' : `${Math.round((100 * n) / d)}%`);

export function formatRedlines(rows: readonly ContractRedlines[], wallSeconds: number): string {
  const sum = (f: (r: ContractRedlines) => number) => rows.reduce((a, r) => a + f(r), 0);
  const redlines = sum((r) => r.redlines);
  const insertions = sum((r) => r.insertions);
  const lines = [
    `contracts ${rows.length} (${rows.filter((r) => !r.covered).length} of a type the playbook does not cover), reviewed in ${wallSeconds} s`,
    `redlines ${redlines}: in place ${pct(
      sum((r) => r.inPlace),
      redlines,
    )}, model-drafted ${pct(
      sum((r) => r.modelDrafted),
      redlines,
    )}; withheld by the pipeline ${sum((r) => r.withheld)}`,
    `insertions in report.docx ${insertions} (${(insertions / Math.max(1, rows.length)).toFixed(1)} per contract); required clauses inserted as paragraphs ${sum((r) => r.requiredInserted)}`,
    `200+ characters appended to a clause's own paragraph ${sum((r) => r.appended200)} (${pct(
      sum((r) => r.appended200),
      insertions,
    )} of insertions)`,
    `foreign party roles ${sum((r) => r.foreignRoles.length)}, repeated insertions ${sum((r) => r.repeats)}, reject-all not the original ${rows.filter((r) => !r.rejectAllIsOriginal).length}`,
    `reviewed for a party read from the contract: ${rows.filter((r) => r.reviewedFor !== '-' && r.reviewedFor !== 'not read').length} of ${rows.length}`,
  ];
  for (const r of rows.filter((x) => x.foreignRoles.length > 0 || x.repeats > 0 || !x.rejectAllIsOriginal)) {
    lines.push(
      `  ${r.name}: foreign ${r.foreignRoles.join(', ') || 'none'}, repeats ${r.repeats}, reject-all ${r.rejectAllIsOriginal ? 'ok' : 'differs'}`,
    );
  }
  return lines.join('\n');
}

/** Reviews the contracts of `dir` with the default playbook and reads their redlines; undefined when `dir` is absent. */
export async function runRedlinesBench(dir = process.env.CUAD_DEV_SET ?? DEV_SET, limit?: number) {
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .slice(0, limit);
  const out = mkdtempSync(join(tmpdir(), 'clause-review-redlines-'));
  try {
    const started = Date.now();
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'bin/clause-review.ts'),
        'review',
        ...files.map((f) => join(dir, f)),
        '--playbook',
        'default',
        '--ceiling',
        '100',
        '--out',
        out,
        '--timeout',
        '7200',
      ],
      { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
    );
    const wallSeconds = Math.round((Date.now() - started) / 1000);
    if (run.status === null) throw new Error(`the review was stopped by ${run.signal}`);
    // The folders the command names, in the order it was given the files.
    const used = new Set<string>();
    const rows = files.flatMap((f) => {
      const reportDir = join(out, reportDirName(f, used));
      if (!existsSync(join(reportDir, 'report.json'))) return [];
      return [readRedlines(f.replace(/\.txt$/, ''), reportDir, readFileSync(join(dir, f), 'utf8'))];
    });
    if (rows.length < files.length) {
      return `${formatRedlines(rows, wallSeconds)}\n${files.length - rows.length} contract(s) wrote no report:\n${run.stdout.slice(-2000)}`;
    }
    return formatRedlines(rows, wallSeconds);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--limit');
  const limit = at >= 0 ? Number(args[at + 1]) : undefined;
  const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--limit');
  console.log(
    (await runRedlinesBench(dir, limit)) ?? `skipped: the development set (${dir ?? DEV_SET}) is not here`,
  );
}

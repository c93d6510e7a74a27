/**
 * `npx clause-review review CONTRACT.docx --playbook default` on the embedded local stack, start
 * to finish: a CUAD contract saved as a DOCX gets report.docx with the analysts' redlines as
 * tracked changes, read back here as Word would (reject all, accept all); and a CUAD contract
 * with no limitation of liability gets the required-clause finding.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseText } from '../../lambdas/core/documents/normalise.js';
import { parseDocument } from '../../lambdas/core/documents/parse.js';
import { type Playbook, shippedPlaybooks } from '../../lambdas/core/playbooks/index.js';
import { applyEdits, changeAuthorOf, paragraphTexts } from '../../lambdas/core/report-docx/index.js';
import type { ProposedRedline, Report } from '../../lambdas/core/report-types.js';
import { buildStyledDocx, styledParagraphs } from '../fixtures/documents/builders.js';
import { runCli } from '../helpers/cli-run.js';
import { redlinedText, W, xmlPart } from '../helpers/docx-report.js';
import { awsEndpoint } from '../helpers/local-aws.js';
import { CONSULTING as CONSULTING_TXT, fixture, markedUpConsulting, SMALL } from '../helpers/pipeline.js';
import { seededRandom } from '../helpers/random.js';
import { strictFailures } from '../helpers/strict-xml.js';
import { acceptChanges, changeMarks, rejectChanges, wordText } from '../helpers/tracked-changes.js';

/** The consulting agreement as the other side marked it up: three terms below every rung. */
const CONSULTING = CONSULTING_TXT.replace(/\.txt$/, '');
const DEFAULT = shippedPlaybooks().find((p) => p.playbook.name === 'default')?.playbook as Playbook;

const dir = mkdtempSync(join(tmpdir(), 'clause-review-playbook-'));
const out = join(dir, 'reports');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The contract as Word would hold it: one paragraph per line, in runs cut mid-word with their own formatting. */
const docx = buildStyledDocx(
  styledParagraphs(
    markedUpConsulting()
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim() !== ''),
    seededRandom(35),
  ),
);

/** The package's bin entry, as `npx clause-review` runs it; the emulator is the worker's. */
const cli = (args: string[]) => runCli(args, { ...process.env, AWS_ENDPOINT_URL: awsEndpoint() });

let run: Awaited<ReturnType<typeof cli>>;
const reportOf = (name: string) => JSON.parse(readFileSync(join(out, name, 'report.json'), 'utf8')) as Report;

beforeAll(async () => {
  writeFileSync(join(dir, `${CONSULTING}.docx`), docx);
  writeFileSync(join(dir, SMALL), fixture(SMALL));
  run = await cli([
    'review',
    join(dir, `${CONSULTING}.docx`),
    join(dir, SMALL),
    '--playbook',
    'default',
    '--out',
    out,
  ]);
}, 300_000);

const redlinesOf = (report: Report): ProposedRedline[] =>
  report.clauses.flatMap((c) => (c.positions ?? []).flatMap((p) => (p.redline ? [p.redline] : [])));

describe('npx clause-review review CONTRACT.docx --playbook default', () => {
  it('reviews against the playbook and records it, the contract type and the positions reached', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/reviewing against playbook default@\d+/);
    const report = reportOf(CONSULTING);
    expect(report.job.status).toBe('completed');
    expect(report.job.playbook).toMatchObject({ name: 'default', title: DEFAULT.title });
    const review = report.playbookReview;
    expect(review?.contractType).toEqual({
      type: 'services',
      source: 'detected',
      kind: { id: 'consulting', label: 'Consulting Agreement', from: 'title' },
      covered: true,
    });
    expect(review?.positions.map((p) => p.topic)).toEqual(
      DEFAULT.positions
        .filter((p) => !p.contractTypes || p.contractTypes.includes('services'))
        .map((p) => p.topic),
    );
    const findings = report.clauses.flatMap((c) => c.positions ?? []);
    expect(findings.length).toBeGreaterThan(0);
    for (const c of report.clauses) {
      for (const f of c.positions ?? []) {
        for (const q of f.quotes) expect(c.text.slice(q.start - c.start, q.end - c.start)).toBe(q.quote);
        if (f.rung !== 'standard') expect(f.redline, `${c.id} ${f.topic}`).toBeDefined();
      }
    }
  });

  it('writes report.docx whose tracked changes read back: unique ids, an author and a date; reject all gives the original, accept all the redlined text', async () => {
    const report = reportOf(CONSULTING);
    const redlines = redlinesOf(report);
    const placed = report.playbookReview?.docx?.placed ?? [];
    expect(placed.length).toBeGreaterThan(0);
    expect(placed.length + (report.playbookReview?.docx?.notPlaced.length ?? 0)).toBe(redlines.length);

    const written = readFileSync(join(out, CONSULTING, 'report.docx'));
    expect(strictFailures(written)).toEqual({});
    const doc = xmlPart(written, 'word/document.xml');
    const author = changeAuthorOf(report.job.jobId, undefined);
    const marks = changeMarks(doc);
    expect(marks.length).toBeGreaterThanOrEqual(placed.length);
    const date = report.timings.finalizedAt.replace(/\.\d+Z$/, 'Z');
    for (const m of marks) {
      expect(m.author).toBe(author);
      expect(m.date).toBe(date);
      expect(m.id).toMatch(/^\d+$/);
    }
    const comments = xmlPart(written, 'word/comments.xml').getElementsByTagNameNS(W, 'comment');
    const ids = [
      ...marks.map((m) => m.id),
      ...Array.from({ length: comments.length }, (_, i) => comments.item(i)?.getAttributeNS(W, 'id')),
    ];
    expect(new Set(ids).size).toBe(ids.length);

    // Reject every change: the original document's text, paragraph for paragraph.
    const rejected = xmlPart(written, 'word/document.xml');
    rejectChanges(rejected, author);
    expect(paragraphTexts(rejected)).toEqual(paragraphTexts(xmlPart(docx, 'word/document.xml')));

    // Accept every change: the text with each placed redline's edits made, as report.json says.
    const accepted = xmlPart(written, 'word/document.xml');
    acceptChanges(accepted, author);
    const { text } = await parseDocument(docx, { key: `${CONSULTING}.docx`, maxBytes: 1 << 22 });
    const byId = new Map(report.clauses.map((c) => [c.id, c]));
    const acceptedText = normaliseText(wordText(accepted));
    // Each required clause missing went in whole, as a paragraph of its own; without them, the
    // contract's own paragraphs with the placed redlines' edits made.
    const inserted = report.playbookReview?.docx?.inserted ?? [];
    expect(inserted.length).toBeGreaterThan(0);
    let ownParagraphs = acceptedText.split('\n\n');
    for (const id of inserted) {
      const language = report.playbookReview?.missing.find((m) => m.id === id)?.language ?? '';
      const at = ownParagraphs.findIndex((p) => p.endsWith(normaliseText(language)));
      expect(at, id).toBeGreaterThanOrEqual(0);
      ownParagraphs = ownParagraphs.filter((_, i) => i !== at);
    }
    expect(ownParagraphs.join('\n\n')).toBe(normaliseText(redlinedText(text, report, redlines, placed)));
    for (const r of redlines) expect(r.text).toBe(applyEdits(byId.get(r.clauseId)?.text ?? '', r.edits));
    // Each clause accepts to what report.json says: its one redline's text, or, where several
    // positions' redlines were placed in it, all of their edits made in playbook order.
    const clauses = report.playbookReview?.docx?.clauses ?? [];
    expect(clauses.flatMap((c) => c.redlines).sort()).toEqual([...placed].sort());
    for (const c of clauses) {
      const mine = c.redlines.map((id) => redlines.find((r) => r.id === id) as ProposedRedline);
      expect(mine.map((r) => r.id)).toEqual(
        redlines.filter((r) => r.clauseId === c.clauseId && placed.includes(r.id)).map((r) => r.id),
      );
      const only = mine.length === 1 ? mine[0] : undefined;
      expect(c.text).toBe(
        only
          ? only.text
          : applyEdits(
              byId.get(c.clauseId)?.text ?? '',
              mine.flatMap((r) => r.edits),
            ),
      );
      expect(acceptedText).toContain(normaliseText(c.text));
    }
  });

  it('finds the limitation of liability missing from a contract that has none, with the language to insert and its approver', () => {
    const report = reportOf(SMALL.replace(/\.txt$/, ''));
    const missing = report.playbookReview?.missing.find((m) => m.topic === 'limitation-of-liability');
    const required = DEFAULT.requiredClauses.find((r) => r.topic === 'limitation-of-liability');
    expect(missing).toMatchObject({
      id: 'document/playbook/limitation-of-liability',
      category: 'liability',
      language: required?.language,
      placement: { note: required?.placement.note },
      escalation: { group: 'legal-approvers', reason: 'required-clause-missing' },
    });
    expect(report.playbookReview?.escalations).toContainEqual({
      findingId: 'document/playbook/limitation-of-liability',
      group: 'legal-approvers',
      reason: 'required-clause-missing',
    });
    const html = readFileSync(join(out, SMALL.replace(/\.txt$/, ''), 'report.html'), 'utf8');
    expect(html).toContain('Required clauses missing');
  });
});

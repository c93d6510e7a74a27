/**
 * `npx clause-review review` on a round of a negotiation, start to finish on the embedded local
 * stack with the default playbook: a CUAD contract made into our version, their answer with three
 * changes tracked by Opposing Counsel and a comment, and their clean copy
 * (test/fixtures/negotiation/round.ts), our version with a cap of two years' fees added at its end,
 * which their answer lowers to one month's. The tracked answer's report lists each of their changes
 * with author, clause, verdict and reason; its report.docx keeps their markup under their name,
 * answers each change and threads a reply under their comment, and rejecting only our changes
 * gives their version back. The clean copy reviewed `--against` our version finds the same
 * clauses changed, with the same verdicts. A job held for the playbook's approvers is closed on
 * the embedded stack rather than waited out.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../lambdas/core/report-types.js';
import { roundDocuments } from '../fixtures/negotiation/round.js';
import { runCli } from '../helpers/cli-run.js';
import { OTHER } from '../helpers/docx-revisions.js';
import { awsEndpoint } from '../helpers/local-aws.js';
import { fixture } from '../helpers/pipeline.js';
import { changeMarks, rejectChanges } from '../helpers/tracked-changes.js';

/** A consulting agreement of 39 clauses (we are the Company); two of them changed as the consultant's counsel would. */
const CONTRACT = 'KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT.txt';
const EDITS = [
  {
    delete:
      'Either Consultant or Company may terminate this Agreement upon prior written notice thereof to the other party',
    insert: 'Consultant may terminate this Agreement in its sole discretion and without notice',
  },
  {
    delete: 'within thirty (30) days after receipt',
    insert: 'within ten (10) days after receipt',
    comment: 'We need to be paid sooner.',
  },
  { delete: 'the twenty-four (24) months', insert: 'the one (1) month' },
];
/** The agreement has no cap of its own: ours adds one at the end, which their answer lowers. */
const CAP =
  "14. Limitation of Liability. Each party's total aggregate liability arising out of or in connection with this Agreement is limited to the fees paid or payable under this Agreement in the twenty-four (24) months before the claim.";
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

const dir = mkdtempSync(join(tmpdir(), 'clause-review-round-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = (args: string[]) => runCli(args, { ...process.env, AWS_ENDPOINT_URL: awsEndpoint() });
const reportOf = (name: string) =>
  JSON.parse(readFileSync(join(dir, 'out', name, 'report.json'), 'utf8')) as Report;

let tracked: Awaited<ReturnType<typeof cli>>;
let clean: Awaited<ReturnType<typeof cli>>;
let docs: ReturnType<typeof roundDocuments>;

beforeAll(async () => {
  const text = `${fixture(CONTRACT).toString('utf8').trimEnd()}\n${CAP}\n`;
  const first = (s: string) => text.indexOf(s) >= 0 && text.indexOf(s) === text.lastIndexOf(s);
  for (const e of EDITS)
    if (!first(e.delete)) throw new Error(`${CONTRACT} does not hold "${e.delete}" once`);
  docs = roundDocuments(text, EDITS);
  writeFileSync(join(dir, 'ours.docx'), docs.ours);
  writeFileSync(join(dir, 'their-answer.docx'), docs.tracked);
  writeFileSync(join(dir, 'their-clean.docx'), docs.clean);
  const out = join(dir, 'out');
  tracked = await cli(['review', join(dir, 'their-answer.docx'), '--playbook', 'default', '--out', out]);
  clean = await cli([
    'review',
    join(dir, 'their-clean.docx'),
    '--against',
    join(dir, 'ours.docx'),
    '--playbook',
    'default',
    '--out',
    out,
  ]);
}, 600_000);

describe('clause-review review of their answer', () => {
  it('says what their changes came to, and lists each with author, clause, verdict and reason', () => {
    expect(tracked.code, tracked.stderr).toBe(0);
    expect(tracked.stdout).toMatch(
      /their-answer\.docx: Their changes: 3 — accept \d, reject \d, counter \d; their comments: 1, each with a proposed reply \(by Opposing Counsel\)/,
    );
    const n = reportOf('their-answer').negotiation;
    expect(n?.changes.map((c) => [c.author, c.kind, c.inserted])).toEqual([
      [OTHER, 'replacement', EDITS[0]?.insert],
      [OTHER, 'replacement', EDITS[1]?.insert],
      [OTHER, 'replacement', EDITS[2]?.insert],
    ]);
    // A cap lowered from two years' fees to a month's: below what the default playbook accepts.
    const cap = n?.changes[2];
    expect(['reject', 'counter']).toContain(cap?.verdict);
    expect(cap?.shifts?.find((x) => x.topic === 'limitation-of-liability')).toMatchObject({
      before: { rung: 'standard' },
      after: { rung: 'not-acceptable' },
    });
    for (const c of n?.changes ?? []) {
      expect(c.clauseIds).toHaveLength(1);
      expect(['accept', 'reject', 'counter']).toContain(c.verdict);
      expect(c.reason).toMatch(/^(Worse|No worse|Acceptable)/);
    }
    expect(n?.comments.map((c) => [c.author, c.text, c.changes])).toEqual([
      [OTHER, 'We need to be paid sooner.', ['n2']],
    ]);
  });

  it('writes report.docx with their markup kept, each change answered, their comment replied to, and their version under ours', () => {
    const docx = readFileSync(join(dir, 'out', 'their-answer', 'report.docx'));
    const part = (bytes: Uint8Array, name: string) =>
      new DOMParser().parseFromString(strFromU8(unzipSync(bytes)[name] ?? new Uint8Array()), 'text/xml');
    const comments = strFromU8(unzipSync(docx)['word/comments.xml'] ?? new Uint8Array());
    expect(comments).toContain(`w:author="${OTHER}"`);
    expect(comments.match(/Their replacement \(n\d/g)).toHaveLength(3);
    expect(strFromU8(unzipSync(docx)['word/commentsExtended.xml'] ?? new Uint8Array())).toMatch(
      /w15:paraIdParent="[0-9A-F]{8}"/,
    );
    const doc = part(docx, 'word/document.xml');
    const theirs = changeMarks(part(docs.tracked, 'word/document.xml'));
    for (const m of theirs) expect(changeMarks(doc).find((x) => x.id === m.id)?.author).toBe(OTHER);
    const ours = changeMarks(doc).find((m) => m.author?.startsWith('clause-review'))?.author;
    rejectChanges(doc, ours ?? 'nobody');
    const text = (d: Document) =>
      Array.from(
        { length: d.getElementsByTagNameNS(W, 'p').length },
        (_, i) => d.getElementsByTagNameNS(W, 'p').item(i)?.textContent,
      );
    expect(text(doc)).toEqual(text(part(docs.tracked, 'word/document.xml')));
  });
});

describe('clause-review review --against our version, of their clean copy', () => {
  it('finds the same clauses changed, with the same verdicts', () => {
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toMatch(
      /our version .*ours\.docx → .*against\/ours\.docx \(compared with, not reviewed\)/,
    );
    expect(clean.stdout).toMatch(
      /their-clean\.docx: Their changes: \d+ — .*compared with our version \(sha256 [0-9a-f]{12}…\)/,
    );
    const verdicts = (r: Report) => [
      ...new Map((r.negotiation?.changes ?? []).map((c) => [c.clauseIds.join(), c.verdict])).entries(),
    ];
    const compared = reportOf('their-clean');
    expect(compared.negotiation?.source).toBe('compared');
    expect(verdicts(compared)).toEqual(verdicts(reportOf('their-answer')));
  });
});

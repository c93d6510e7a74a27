import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ANALYSTS, CATEGORIES } from '../../../lambdas/core/analysts/index.js';
import { escapeHtml, renderReportHtml } from '../../../lambdas/core/finalize/report-html.js';
import type { Report, ReportClause, ReportFinding } from '../../../lambdas/core/report-types.js';
import { withPlaybookReview, wordOf } from '../../helpers/playbook-positions.js';

const XSS = '</script><img src=x onerror=alert(1)>';
const ATTR_XSS = '"><svg onload=alert(2)>';

interface ClauseSpec {
  readonly label?: string;
  readonly heading?: string;
  readonly text: string;
  readonly chunk: number;
  readonly status: ReportClause['status'];
  readonly risk: ReportClause['risk'];
  readonly scores: Record<string, number | null>;
  readonly findings: readonly {
    category: string;
    score: number;
    quote: string;
    rationale: string;
    analysts: string[];
  }[];
  readonly analystsFailed?: string[];
}

const SPECS: readonly ClauseSpec[] = [
  {
    label: '4.1',
    heading: 'Term',
    text: 'This Agreement commences on the Effective Date and continues for five (5) years, and thereafter renews automatically for successive one-year terms unless either party gives written notice at least ninety (90) days before the end of the then-current term.',
    chunk: 0,
    status: 'analysed',
    risk: 'medium',
    scores: { 'term-renewal': 2, termination: 0 },
    findings: [
      {
        category: 'term-renewal',
        score: 2,
        quote: 'renews automatically for successive one-year terms',
        rationale: 'Evergreen renewal locks the customer in unless it remembers the 90-day window.',
        analysts: ['deal-balance', 'term-lifecycle'],
      },
      {
        category: 'termination',
        score: 0,
        quote: 'written notice at least ninety (90) days',
        rationale: 'Mutual non-renewal right with a customary notice period.',
        analysts: ['term-lifecycle'],
      },
    ],
  },
  {
    label: '9.2',
    heading: `Indemnity ${XSS} & 'co' ${ATTR_XSS}`,
    text: `Customer shall indemnify, defend and hold harmless Supplier from any and all claims arising out of this Agreement. ${XSS} Supplier's aggregate liability shall not exceed the fees paid in the preceding month.`,
    chunk: 0,
    status: 'analysed',
    risk: 'critical',
    scores: { liability: 3, 'warranty-insurance': 2, 'governing-law-disputes': null },
    findings: [
      {
        category: 'liability',
        score: 3,
        quote:
          'indemnify, defend and hold harmless Supplier from any and all claims arising out of this Agreement',
        rationale: `One-way, uncapped indemnity for any claim. ${XSS}`,
        analysts: ['liability-counsel', 'risk-transfer'],
      },
      {
        category: 'liability',
        score: 3,
        quote: "Supplier's aggregate liability shall not exceed the fees paid in the preceding month",
        rationale: "Supplier's cap is one month of fees while the customer's indemnity is uncapped.",
        analysts: ['liability-counsel'],
      },
      {
        category: 'warranty-insurance',
        score: 2,
        quote: 'aggregate liability shall not exceed',
        rationale: 'No insurance backs the indemnity; overlapping span to exercise nested highlighting.',
        analysts: ['risk-transfer'],
      },
    ],
  },
  {
    label: '12',
    heading: 'Governing law',
    text: 'This Agreement is governed by the laws of the State of New York, and the parties submit to the exclusive jurisdiction of the courts of New York County.',
    chunk: 0,
    status: 'partial',
    risk: 'low',
    scores: { 'governing-law-disputes': 1 },
    findings: [
      {
        category: 'governing-law-disputes',
        score: 1,
        quote: 'exclusive jurisdiction of the courts of New York County',
        rationale: 'Exclusive forum may be distant for a non-US customer.',
        analysts: ['disputes-counsel'],
      },
    ],
    analystsFailed: ['risk-transfer'],
  },
  {
    label: '13',
    text: 'Supplier may audit Customer’s books and records once per calendar year on thirty days’ notice.',
    chunk: 1,
    status: 'not-analysed',
    risk: null,
    scores: {},
    findings: [],
  },
];

function buildFixture(overrides: Partial<Report> = {}): Report {
  const clauses: ReportClause[] = [];
  let offset = 120; // a title block precedes the first clause in the normalised text
  SPECS.forEach((spec, index) => {
    const start = offset;
    const end = start + spec.text.length;
    offset = end + 2;
    const findings: ReportFinding[] = spec.findings.map((f) => {
      const at = spec.text.indexOf(f.quote);
      if (at < 0) throw new Error(`fixture quote not in clause: ${f.quote}`);
      return { ...f, start: start + at, end: start + at + f.quote.length };
    });
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c.id, spec.scores[c.id] ?? null]));
    const failed = spec.analystsFailed ?? [];
    clauses.push({
      id: `c${String(index + 1).padStart(4, '0')}`,
      index,
      chunk: spec.chunk,
      ...(spec.label ? { label: spec.label } : {}),
      ...(spec.heading ? { heading: spec.heading } : {}),
      start,
      end,
      text: spec.text,
      status: spec.status,
      risk: spec.risk,
      maxScore:
        spec.status === 'not-analysed' ? null : Math.max(...Object.values(spec.scores).map((s) => s ?? -1)),
      scores,
      findings,
      analystsAnswered:
        spec.status === 'not-analysed' ? [] : ANALYSTS.map((a) => a.id).filter((id) => !failed.includes(id)),
      analystsFailed: failed,
    });
  });

  return {
    schemaVersion: 1,
    job: {
      jobId: 'job-2f6c1e0a-report-test',
      status: 'incomplete',
      reason: `1 chunk(s) did not finish; 1 call(s) failed: c0003/risk-transfer (validation: quote not found in clause)`,
      lane: 'realtime',
      analysts: ANALYSTS.map((a) => a.id),
      document: {
        bucket: 'clause-review-inbox',
        key: 'inbox/acme/master-services-agreement.docx',
        versionId: 'v3',
        sha256: 'a'.repeat(64),
        bytes: 48_213,
        format: 'docx',
      },
    },
    categories: CATEGORIES.map((c) => ({ id: c.id, name: c.name })),
    analystPanel: ANALYSTS.map((a) => ({ id: a.id, name: a.name, categories: [...a.categories] })),
    summary: {
      clauses: 4,
      clausesAnalysed: 3,
      riskCounts: { none: 0, low: 1, medium: 1, high: 0, critical: 1 },
      categoriesFlagged: Object.fromEntries(
        CATEGORIES.map((c) => [
          c.id,
          ['term-renewal', 'liability', 'warranty-insurance'].includes(c.id) ? 1 : 0,
        ]),
      ),
    },
    clauses,
    chunks: [
      {
        chunk: 0,
        clauseIds: ['c0001', 'c0002', 'c0003'],
        stages: {
          analyze: {
            status: 'done',
            attempts: 2,
            startedAt: '2025-03-04T10:00:01.000Z',
            finishedAt: '2025-03-04T10:00:41.000Z',
          },
          consolidate: {
            status: 'done',
            attempts: 1,
            startedAt: '2025-03-04T10:00:41.500Z',
            finishedAt: '2025-03-04T10:00:42.000Z',
          },
        },
      },
      {
        chunk: 1,
        clauseIds: ['c0004'],
        stages: {
          analyze: {
            status: 'dead',
            attempts: 3,
            startedAt: '2025-03-04T10:00:01.000Z',
            lastError: 'ThrottlingException: Rate exceeded <retry later>',
            errorClass: 'transient',
          },
          consolidate: { status: 'missing', attempts: 0 },
        },
      },
    ],
    coverage: {
      callsPlanned: 44,
      callsDone: 32,
      callsReused: 3,
      callsFailed: 1,
      callsSkippedBudget: 0,
      callsCancelled: 0,
      callsScreened: 0,
      callsNotRun: 11,
      modelAttempts: 41,
      tier1Retries: 6,
      redeliveries: 3,
      failedCalls: [
        {
          chunk: 0,
          clauseId: 'c0003',
          analystId: 'risk-transfer',
          failureKind: 'validation',
          errorClass: 'validation',
          lastError: `quote not found in clause: "limits of <b>insurance</b>" ${XSS}`,
          attempts: 2,
        },
      ],
      unfinishedChunks: [
        {
          chunk: 1,
          stage: 'analyze',
          status: 'dead',
          detail: 'ThrottlingException: Rate exceeded <retry later>',
        },
      ],
    },
    cost: {
      ceilingMicros: 2_000_000,
      spentMicros: 421_337,
      reservedMicros: 12_000,
      committedMicros: 433_337,
      inputTokens: 90_210,
      outputTokens: 40_112,
      cacheReadInputTokens: 310_400,
      cacheWriteInputTokens: 52_800,
    },
    timings: {
      createdAt: '2025-03-04T09:59:58.000Z',
      finalizedAt: '2025-03-04T10:05:12.000Z',
      durationMs: 314_000,
    },
    notice:
      'Answers came from the offline heuristic stand-in for Amazon Bedrock, not from a legal-grade model: do not rely on them.',
    ...overrides,
  };
}

/** Every start tag: its name and attributes, values unescaped of nothing (they are compared raw). */
function elements(html: string): { name: string; attrs: Record<string, string> }[] {
  const tag = /<([a-zA-Z][\w-]*)((?:\s+[\w:-]+(?:="[^"]*")?)*)\s*\/?>/g;
  return [...html.matchAll(tag)].map((m) => ({
    name: m[1] ?? '',
    attrs: Object.fromEntries(
      [...(m[2] ?? '').matchAll(/\s([\w:-]+)(?:="([^"]*)")?/g)].map((a) => [
        (a[1] ?? '').toLowerCase(),
        a[2] ?? '',
      ]),
    ),
  }));
}

/** The content of the first element matching `open` up to its closing `close`. */
function between(html: string, open: RegExp, close: string): string {
  const m = open.exec(html);
  if (!m) throw new Error(`no match for ${open}`);
  const from = m.index + m[0].length;
  const to = html.indexOf(close, from);
  if (to < 0) throw new Error(`no ${close} after ${open}`);
  return html.slice(from, to);
}

describe('renderReportHtml', () => {
  const report = buildFixture();
  const html = renderReportHtml(report);

  it('is one HTML5 document', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    expect(html.match(/<html[\s>]/g)).toHaveLength(1);
    expect(html).toContain('<meta charset="utf-8">');
  });

  it('loads nothing from outside the file', () => {
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/<script[^>]*\ssrc\s*=/i);
    // Every tag parses with double-quoted attributes; none loads anything, links only inside the page,
    // and none carries an event handler (escaped text such as "&lt;img src=x" is not an element).
    const tags = elements(html);
    expect(tags).toHaveLength(html.match(/<[a-zA-Z]/g)?.length ?? 0);
    for (const { name, attrs } of tags) {
      expect(Object.keys(attrs).filter((a) => a === 'src' || a === 'srcset' || a.startsWith('on'))).toEqual(
        [],
      );
      if (attrs.href !== undefined) expect(attrs.href, `<${name} href>`).toMatch(/^#/);
    }
    expect(html).not.toMatch(/<(img|iframe|object|embed|svg|video|audio|base)[\s>]/i);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/url\(|@import/i);
    // Exactly two script elements: the JSON data block and the inline script.
    expect(html.match(/<script[\s>]/g)).toHaveLength(2);
    expect(html).toContain("default-src 'none'");
  });

  it('escapes hostile contract text and model output everywhere', () => {
    expect(html).not.toContain(XSS);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<svg');
    expect(html).not.toContain(ATTR_XSS);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain(escapeHtml(XSS));
    expect(html).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    // Attribute breakers are neutralised too (the heading lands in title attributes).
    expect(html).toContain('&quot;&gt;&lt;svg onload=alert(2)&gt;');
    expect(html).toContain('&amp; &#39;co&#39;');
  });

  it('embeds the script data as JSON with no raw < > &', () => {
    const json = between(html, /<script type="application\/json" id="report-data">/, '</script>');
    expect(json).not.toMatch(/[<>&]/);
    expect(json).toContain('\\u003c/script\\u003e\\u003cimg');
    const data = JSON.parse(json) as { clauses: { label: string; anchor: string }[] };
    expect(data.clauses).toHaveLength(4);
    expect(data.clauses[1]?.label).toContain(XSS);
  });

  it('runs only its own script, whose hash the CSP allows and which parses', () => {
    const script = between(html, /<script>/, '</script>');
    const hash = createHash('sha256').update(script, 'utf8').digest('base64');
    expect(html).toContain(`script-src 'sha256-${hash}'`);
    expect(() => new Function(script)).not.toThrow();
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });

  it('shows the header: document, job, status badge, reason, lane, times and the notice', () => {
    expect(html).toContain('master-services-agreement.docx');
    expect(html).toContain('inbox/acme/master-services-agreement.docx');
    expect(html).toContain('job-2f6c1e0a-report-test');
    expect(html).toMatch(/<span class="badge st-incomplete">Incomplete<\/span>/);
    expect(html).toContain('1 chunk(s) did not finish');
    expect(html).toContain('realtime');
    expect(html).toContain('datetime="2025-03-04T10:05:12.000Z"');
    expect(html).toMatch(/<div class="notice" role="note"[^>]*>.*offline heuristic stand-in/);
  });

  it('says what the contract was reviewed against: the playbook by title, version and hash, or the categories alone', () => {
    const row = (h: string) => between(h, /<dt>Reviewed against<\/dt><dd>/, '</dd>');
    expect(row(html)).toBe('the twelve risk categories (no playbook)');
    const sha256 = 'ab'.repeat(32);
    const against = renderReportHtml({
      ...report,
      job: { ...report.job, playbook: { name: 'default', version: 3, sha256, title: `Ours ${XSS}` } },
    });
    expect(row(against)).toBe(
      `playbook <strong>Ours ${escapeHtml(XSS)}</strong> (<code>default@3</code>, SHA-256 <code class="hash">${sha256}</code>)`,
    );
  });

  it('summarises clauses analysed, risk counts and flagged categories', () => {
    const summary = between(html, /<section id="summary"[^>]*>/, '</section>');
    expect(summary).toMatch(/3 <span class="of">\/ 4<\/span>/);
    for (const risk of ['critical', 'high', 'medium', 'low', 'none']) {
      expect(summary).toContain(`class="chip risk-${risk}"`);
    }
    expect(summary).toContain('<li class="chip risk-critical"><span class="n">1</span> Critical</li>');
    expect(summary).toContain(
      '<li class="flag on"><span class="n">1</span> Liability, damages and indemnity</li>',
    );
  });

  it('has a heat map with every category as a column header and one row per clause', () => {
    const heat = between(html, /<table class="heat">/, '</table>');
    const thead = between(heat, /<thead>/, '</thead>');
    for (const cat of CATEGORIES) {
      expect(thead).toContain(
        `<th scope="col" class="cat" title="${escapeHtml(cat.name)}"><span>${escapeHtml(cat.name)}</span></th>`,
      );
    }
    const tbody = between(heat, /<tbody>/, '</tbody>');
    expect(tbody.match(/<tr /g)).toHaveLength(report.clauses.length);
    expect(tbody.match(/data-anchor="clause-\d+"/g)).toEqual(
      report.clauses.map((_, i) => `data-anchor="clause-${i}"`),
    );
    // Cells carry the score and a tooltip; a severe score is red (s3).
    expect(tbody).toContain('<td class="s3" title="Liability, damages and indemnity: 3 · severe">3</td>');
    // A partial clause's categories no answering analyst covers are "not assessed"; others "not addressed".
    const warranty = CATEGORIES.find((c) => c.id === 'warranty-insurance')?.name ?? '';
    expect(tbody).toContain(`title="${escapeHtml(warranty)}: not assessed"`);
    expect(tbody).toContain(': not addressed"');
  });

  it('lists findings per clause with the quote highlighted at its offsets, rationale and analysts', () => {
    const findings = between(html, /<section id="findings"[^>]*>/, '</section>');
    expect(findings.match(/<article class="clause"/g)).toHaveLength(4);
    expect(findings.match(/<li class="finding"/g)).toHaveLength(6);
    expect(findings).toContain(
      '<mark class="hl s2" data-f="0" title="Term and renewal: 2 · significant">renews automatically for successive one-year terms</mark>',
    );
    // Overlapping spans are split: the shared part belongs to both findings.
    expect(findings).toMatch(
      /<mark class="hl s3" data-f="1 2"[^>]*>aggregate liability shall not exceed<\/mark>/,
    );
    expect(findings).toContain('Evergreen renewal locks the customer in');
    expect(findings).toContain('<code title="Deal balance reviewer">deal-balance</code>');
    expect(findings).toContain(
      'Partial: no answer from <code title="Warranty and insurance specialist">risk-transfer</code>',
    );
    expect(findings).toContain('Not analysed: the chunk holding this clause did not finish.');
    // Controls of the filter bar are labelled.
    for (const id of ['f-risk', 'f-cat', 'f-q', 'f-all', 'f-reset']) {
      expect(findings).toMatch(new RegExp(`id="${id}"[^>]*aria-label="[^"]+"`));
    }
  });

  it('reports coverage, the failed call and the unfinished chunk', () => {
    const coverage = between(html, /<section id="coverage"[^>]*>/, '</section>');
    expect(coverage).toContain('<dt>Calls planned</dt><dd>44</dd>');
    expect(coverage).toContain('<dt>Redeliveries</dt><dd>3</dd>');
    expect(coverage).toContain('>risk-transfer</code>');
    expect(coverage).toContain(escapeHtml(report.coverage.failedCalls[0]?.lastError));
    expect(coverage).toContain('<a href="#clause-2"><code>c0003</code></a>');
    expect(coverage).toContain('ThrottlingException: Rate exceeded &lt;retry later&gt;');
    expect(coverage).toMatch(/<details class="stages">/);
  });

  it('counts the screened calls beside the other outcomes, and lists them per analyst with why', () => {
    const screened = renderReportHtml(
      buildFixture({
        coverage: {
          ...report.coverage,
          callsScreened: 5,
          callsNotRun: 6,
          screened: [
            {
              analystId: 'ip-counsel',
              reason: 'screen',
              calls: 5,
              detail: 'none of its categories <likely>',
            },
          ],
        },
      }),
    );
    const coverage = between(screened, /<section id="coverage"[^>]*>/, '</section>');
    expect(coverage).toContain('<dt>Screened</dt><dd>5</dd>');
    expect(coverage).toContain('<dt>Not run</dt><dd>6</dd>');
    expect(coverage).toContain('Calls not asked (5)');
    expect(coverage).toContain('none of its categories &lt;likely&gt;');
    expect(between(html, /<section id="coverage"[^>]*>/, '</section>')).not.toContain('Calls not asked');
  });

  it('shows cost in dollars with four decimals from micro-dollars', () => {
    const cost = between(html, /<section id="cost"[^>]*>/, '</section>');
    expect(cost).toContain('<strong>$0.4213</strong> spent of a <strong>$2.0000</strong> ceiling');
    expect(cost).toContain('<dt>Reserved</dt><dd>$0.0120</dd>');
    expect(cost).toContain('<dt>Committed</dt><dd>$0.4333</dd>');
  });

  it('has a footer naming clause-review and the schema version', () => {
    expect(html).toMatch(/<footer>Generated by clause-review · report schema version 1/);
  });

  it('renders a completed report without a notice, and every status badge', () => {
    const done = renderReportHtml(buildFixture({ notice: undefined }));
    expect(done).not.toContain('class="notice"');
    for (const [status, label] of [
      ['completed', 'Completed'],
      ['cancelled', 'Cancelled'],
      ['budget_exceeded', 'Budget exceeded'],
    ] as const) {
      const base = buildFixture();
      const page = renderReportHtml({ ...base, job: { ...base.job, status } });
      expect(page).toContain(`<span class="badge st-${status}">${label}</span>`);
    }
  });

  it('stays compact for a long contract', () => {
    const base = buildFixture();
    const many = Array.from({ length: 320 }, (_, i) => {
      const c = base.clauses[i % 3] as ReportClause;
      return { ...c, id: `c${String(i + 1).padStart(4, '0')}`, index: i };
    });
    const page = renderReportHtml({ ...base, clauses: many });
    const tbody = between(between(page, /<table class="heat">/, '</table>'), /<tbody>/, '</tbody>');
    expect(tbody.match(/<tr /g)).toHaveLength(320);
    expect(page.length).toBeLessThan(3_000_000);
  });
});

describe('report.html of a review against a playbook', () => {
  const report = withPlaybookReview(buildFixture(), XSS);
  const html = renderReportHtml(report);
  const [a, b] = report.clauses.filter((c) => c.positions?.length);
  if (!a || !b) throw new Error('two clauses with positions');

  it('puts the required clauses found nowhere and every escalation at the top, before the summary', () => {
    const section = between(html, /<section id="playbook"[^>]*>/, '</section>');
    expect(html.indexOf('id="playbook"')).toBeLessThan(html.indexOf('id="summary"'));
    expect(section).toContain('3 finding(s) need an approver (1 decided)');
    expect(section).toContain('Required clauses missing');
    expect(section).toContain(
      '<span class="rung rung-missing">missing</span> <strong>governing-law</strong>',
    );
    expect(section).toContain(
      '<ins><span class="sr">[inserted: </span>Model language of the governing-law clause.<span class="sr">]</span></ins>',
    );
    expect(section).toContain(
      'Needs <strong>legal-approvers</strong> (a required clause is missing): Not decided before the deadline.',
    );
    expect(html).toContain('<a href="#playbook">Against the playbook</a>');
  });

  it('shows under each clause the rung, the approver and its decision, and the proposed language as tracked changes', () => {
    const first = between(
      html,
      new RegExp(`<li class="position" data-position="${a.id}/playbook/limitation-of-liability">`),
      '</li>',
    );
    expect(first).toContain(
      '<span class="rung rung-not-acceptable">not acceptable</span> <strong>limitation-of-liability</strong>',
    );
    expect(first).toContain(
      'Approved for <strong>legal-approvers</strong> by lee@example.com (<code>9a8b7c6d-0000-4000-8000-000000000001</code>)',
    );
    expect(first).toContain('legal accepts the cap for this supplier');
    // Edited by the reviewer: the diff is theirs, struck and inserted text named in words.
    const word = wordOf(a.text).word;
    expect(first).toContain(
      'Reviewer\'s language (to reach <span class="rung rung-fallback">fallback 2</span>)',
    );
    expect(first).toContain(`<del><span class="sr">[deleted: </span>${word}<span class="sr">]</span></del>`);
    expect(first).toContain(
      `<ins><span class="sr">[inserted: </span>${escapeHtml(`${XSS} and mutual`)}<span class="sr">]</span></ins>`,
    );
    expect(first).toContain('Edited: report.docx carries the reviewer&#39;s edit, by olga@example.com');
    const second = between(
      html,
      new RegExp(`<li class="position" data-position="${b.id}/playbook/termination-for-convenience">`),
      '</li>',
    );
    expect(second).toContain('<span class="rung rung-fallback">fallback 1</span>');
    expect(second).toContain('Proposed language (to reach <span class="rung rung-standard">standard</span>)');
    expect(second).toContain(
      'Proposed, not decided: report.docx carries it as a tracked change to accept or reject in Word.',
    );
    expect(second).toContain(
      'Needs <strong>commercial-approvers</strong> (the fallback needs its approver): Not decided before the deadline.',
    );
    // The redline's inserted text is model output: escaped like everything else.
    expect(html).not.toContain(XSS);
  });

  it("lists the redlines' decisions in the reviewer decisions' trail, beside the findings'", () => {
    const trail = between(html, /<section id="review"[^>]*>/, '</section>');
    expect(trail).toContain(
      `<code>${a.id}/redline/limitation-of-liability</code></td><td>redline accepted</td>`,
    );
    expect(trail).toContain(
      `<code>${a.id}/redline/limitation-of-liability</code></td><td>redline edited</td>`,
    );
    expect(trail).toContain(`<code>${a.id}/playbook/limitation-of-liability</code></td><td>approve</td>`);
    expect(trail).toContain('3 decision(s), oldest first');
  });

  it('shows nothing of a playbook for a report without one', () => {
    const plain = renderReportHtml(buildFixture());
    expect(plain).not.toContain('id="playbook"');
    expect(plain).not.toContain('class="positions"');
  });
});

/**
 * report.html as `renderReportHtml` writes it: one self-contained HTML5 page that loads nothing
 * and runs only its own hashed script, hostile text escaped everywhere; its header, summary, heat
 * map, findings, coverage, cost and footer; every status badge; compact for a long contract. The
 * playbook's parts of the page: report-html-playbook.test.ts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CATEGORIES } from '../../../lambdas/core/analysts/index.js';
import { escapeHtml, renderReportHtml } from '../../../lambdas/core/finalize/report-html.js';
import type { ReportClause } from '../../../lambdas/core/report-types.js';
import { ATTR_XSS, between, buildFixture, XSS } from './report-html-fixture.js';

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

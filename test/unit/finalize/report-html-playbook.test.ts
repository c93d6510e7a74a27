/**
 * report.html of a review against a playbook: the missing required clauses and the escalations
 * at the top, each clause's positions with their rung, approver, decision and proposed language
 * as tracked changes, the redlines' decisions in the trail; nothing of a playbook without one.
 */
import { describe, expect, it } from 'vitest';
import { escapeHtml, renderReportHtml } from '../../../lambdas/core/finalize/report-html.js';
import { withPlaybookReview, wordOf } from '../../helpers/playbook-positions.js';
import { between, buildFixture, XSS } from './report-html-fixture.js';

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

/**
 * report.html as a reader sees it: a report the local pipeline wrote, and variants of it in
 * every state the page can show, rendered in headless Chromium; every visible text must meet
 * WCAG AA contrast (4.5:1) against the background it is painted on.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../lambdas/core/finalize/report-html.js';
import type { Report } from '../../lambdas/core/finalize/report-types.js';
import { launchChromium } from '../helpers/chromium.js';
import { type ContrastAudit, contrastAuditScript } from '../helpers/contrast.js';
import { fixture, SMALL, startHarness } from '../helpers/pipeline.js';
import { withPlaybookReview } from '../helpers/playbook-positions.js';

const h = await startHarness('contrast');

const pages = mkdtempSync(join(tmpdir(), 'clause-review-page-'));
let browser: Browser;
let page: Page;
let loaded = 0;
beforeAll(async () => {
  browser = await launchChromium();
  page = await browser.newPage();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  rmSync(pages, { recursive: true, force: true });
});

/** Opens `html` from a file, as a saved report is opened, and audits what Chromium painted. */
async function audit(html: string, prepare = ''): Promise<ContrastAudit> {
  const file = join(pages, `page-${loaded++}.html`);
  writeFileSync(file, html);
  await page.goto(pathToFileURL(file).href);
  if (prepare) await page.evaluate(prepare);
  return (await page.evaluate(contrastAuditScript())) as ContrastAudit;
}

const bodyOf = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0">${body}</body></html>`;

describe('the contrast audit', () => {
  it('finds white text on #fafafa, and measures it as WCAG does', async () => {
    const result = await audit(bodyOf('<p style="background:#fafafa;color:#fff">severe quote</p>'));
    expect(result.checked).toBe(1);
    expect(result.failures).toEqual([
      expect.objectContaining({ text: 'severe quote', ratio: 1.04, background: 'rgba(250, 250, 250, 1)' }),
    ]);
  });

  it('blends semi-transparent text and backgrounds, and inherits the background of ancestors', async () => {
    const result = await audit(
      bodyOf(
        '<div style="background:#000"><p style="background:rgba(255,255,255,.5)"><span style="color:rgba(0,0,0,.3)">faint</span></p></div>' +
          '<div style="background:#1f2328"><p style="color:#fff">dark panel, white text</p></div>',
      ),
    );
    expect(result.checked).toBe(2);
    // 30 % black over 50 % white on black: rgb(89,89,89) on rgb(128,128,128), about 1.8:1.
    expect(result.failures).toEqual([
      expect.objectContaining({
        text: 'faint',
        color: 'rgba(89, 89, 89, 1)',
        background: 'rgba(128, 128, 128, 1)',
      }),
    ]);
  });

  it('measures text on a gradient against its worst stop, and skips text nobody sees', async () => {
    const result = await audit(
      bodyOf(
        '<p style="background:repeating-linear-gradient(45deg,#fff,#fff 4px,#767676 4px,#767676 8px);color:#555">striped</p>' +
          '<p hidden style="color:#fff">hidden</p><p style="display:none;color:#fff">gone</p>',
      ),
    );
    expect(result.checked).toBe(1);
    expect(result.failures).toEqual([
      expect.objectContaining({ text: 'striped', background: 'rgba(118, 118, 118, 1)' }),
    ]);
  });
});

describe('report.html', () => {
  let report: Report;
  let html: string;

  beforeAll(async () => {
    const job = await h.waitForEnd(await h.upload(SMALL, fixture(SMALL)), 180_000);
    expect(job.status).toBe('completed');
    const get = async (key: string | undefined) =>
      (await (
        await h.pipeline.clients.s3.send(
          new GetObjectCommand({ Bucket: h.stack.resources.resultsBucket, Key: key ?? '' }),
        )
      ).Body?.transformToString()) ?? '';
    html = await get(job.htmlReportKey);
    report = JSON.parse(await get(job.reportKey)) as Report;
  }, 240_000);

  it('as the pipeline wrote it: every text meets 4.5:1', async () => {
    const result = await audit(html);
    expect(result.checked).toBeGreaterThan(200);
    expect(result.failures).toEqual([]);
  });

  it('with findings of every score and clauses of every risk, severe quotes included', async () => {
    const risks = ['none', 'low', 'medium', 'high', 'critical', null] as const;
    let n = 0;
    const variant: Report = {
      ...report,
      clauses: report.clauses.map((c, i) => ({
        ...c,
        risk: risks[i % risks.length] ?? null,
        findings: c.findings.map((f) => ({ ...f, score: [0, 1, 2, 3, null][n++ % 5] ?? null })),
      })),
    };
    const rendered = renderReportHtml(variant);
    // What the known-bad case needs: quotes of severe (score 3) findings, and every chip.
    expect(rendered).toContain('<blockquote class="s3">');
    for (const risk of ['critical', 'high', 'medium', 'low', 'none', 'na'])
      expect(rendered).toContain(`chip risk-${risk}`);
    const result = await audit(rendered);
    expect(result.failures).toEqual([]);
  });

  it('with a review against a playbook: rungs, escalations, missing clauses and redlines as tracked changes', async () => {
    // Every state at once on one page (an escalation approved and one left undecided, a redline
    // edited after it was accepted and one still proposed once the review closed), as the other
    // variants here put every score and status on one page: no single run of the pipeline ends
    // in all of them, and the page must read well in each.
    const rendered = renderReportHtml(withPlaybookReview(report));
    for (const part of [
      'rung-not-acceptable',
      'rung-fallback',
      'rung-missing',
      '<del>',
      '<ins>',
      'rv-approved',
      'rv-unreviewed',
    ])
      expect(rendered).toContain(part);
    const result = await audit(
      rendered,
      `document.querySelectorAll('details').forEach((d) => { d.open = true; });`,
    );
    expect(result.failures).toEqual([]);
  });

  it('with highlighted, dimmed and flashed findings (what hovering, filtering and jumping show)', async () => {
    const result = await audit(
      html,
      `document.querySelectorAll('li.finding').forEach((li, i) => i % 2 && li.classList.add('active'));
       document.querySelectorAll('mark.hl').forEach((m, i) => m.classList.add(i % 2 ? 'active' : 'dim'));
       document.querySelectorAll('article.clause').forEach((a) => a.classList.add('flash'));`,
    );
    expect(result.failures).toEqual([]);
  });

  it.each([
    ['incomplete', 'chunks ended dead'],
    ['cancelled', 'cancelled by arn:aws:iam::123456789012:user/ops'],
    ['budget_exceeded', 'cost ceiling reached'],
  ] as const)(
    'for a job that ended %s, with failures, unfinished chunks and every clause state',
    async (status, reason) => {
      const [first, second, ...rest] = report.clauses;
      if (!first || !second) throw new Error('the small contract has at least two clauses');
      const analyst = report.analystPanel[0]?.id ?? 'deal-balance';
      const variant: Report = {
        ...report,
        job: { ...report.job, status, reason },
        clauses: [
          { ...first, status: 'partial', analystsFailed: [analyst] },
          { ...second, status: 'not-analysed', risk: null, maxScore: null, findings: [], scores: {} },
          ...rest,
        ],
        chunks: report.chunks.map((c, i) => ({
          ...c,
          stages: Object.fromEntries(
            Object.entries(c.stages).map(([name, s]) => [
              name,
              {
                ...s,
                status: ['dead', 'retrying', 'cancelled', 'missing', 'running', 'pending'][i % 6] ?? 'dead',
                lastError: 'ThrottlingException: slow down',
                errorClass: 'transient',
              },
            ]),
          ),
        })),
        coverage: {
          ...report.coverage,
          callsFailed: 3,
          callsSkippedBudget: 2,
          callsNotRun: 1,
          failedCalls: [
            {
              chunk: 0,
              clauseId: first.id,
              analystId: analyst,
              failureKind: 'validation',
              errorClass: 'validation',
              lastError: 'answer failed the schema twice',
              attempts: 3,
            },
          ],
          unfinishedChunks: [
            { chunk: 1, stage: 'analyze', status: 'dead', detail: 'receive count exhausted' },
          ],
        },
        cost: {
          ...report.cost,
          reservedMicros: 120_000,
          quote: { expectedMicros: 400_000, worstCaseMicros: 900_000 },
        },
        timings: { ...report.timings, cancelledAt: report.timings.finalizedAt },
      };
      const result = await audit(renderReportHtml(variant));
      expect(result.failures).toEqual([]);
    },
  );
});

/**
 * The reviewer app in headless Chromium against `local up` (a real process): a first sign-in of
 * an account an administrator created (a new password, then an authenticator app set up with a
 * code computed from the secret the page shows, as the local pool requires TOTP MFA), upload a
 * contract with a `high` gate and the default playbook chosen after its quote, watch clauses
 * appear while the job runs, accept one proposed redline and reject another, decide its gated
 * and escalated findings (one override, the rest approved; the trail names the person by
 * email), and download its reports; axe-core on the sign-in challenges, the job list, the
 * contract view and the review view with its redlines.
 *
 * The review against the playbook (rungs, escalations, redlines) is put into the held review
 * where finalize puts it (`seedPlaybookHolds`, through the gate's own `playbookHolds`), so that
 * the page shows a known redline of each kind, an insertion and a replacement, for the groups the
 * person approves for. The analysts' own positions and redlines on a held job, decided through
 * the same routes, are tested in redline-decisions.test.ts and playbook-review.test.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalState } from '../../bin/commands/local-state.js';
import { DEFAULT_CEILING_MICROS } from '../../lambdas/core/lanes-and-limits.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { launchChromium, screenshotOf, seriousA11yViolations } from '../helpers/chromium.js';
import { uniquePrefix } from '../helpers/local-aws.js';
import { createPerson, type LocalUp, startLocalUp } from '../helpers/local-up.js';
import { fixture, MEDIUM } from '../helpers/pipeline.js';
import { freshCode } from '../helpers/totp.js';
import {
  CONTRACT,
  chooseContract,
  firstSignIn,
  read,
  type SignedInPerson,
  seedPlaybook,
  setSession,
  totpSecret,
  until,
  watch,
} from './reviewer-app-pages.js';

/** Analysts kept for the run (the rest are unticked in the form). */
const ANALYSTS = ['liability-counsel', 'ip-counsel', 'term-lifecycle', 'risk-transfer'];

const scratch = mkdtempSync(join(tmpdir(), 'clause-review-app-'));
let up: LocalUp | undefined;
let state: LocalState;
let browser: Browser;
let page: Page;
/** Who signs in: a person of the local user pool where the emulator serves Cognito, else its keys. */
let person: SignedInPerson;
/** The person approves for both groups the default playbook escalates to. */
const APPROVER_GROUPS = ['legal-approvers', 'commercial-approvers'];

beforeAll(async () => {
  // One realtime invocation at a time, and the stand-in answering each call after 1 s: the
  // chunks consolidate one after another, seconds apart. The stand-in answers with its default
  // offline analyst, the learned one, as it does for anyone who runs `local up`.
  up = await startLocalUp(scratch, [
    '--prefix',
    uniquePrefix('app'),
    '--latency-ms',
    '1000',
    '--invocations',
    '1',
    // A team of one: the person who submits also approves for the groups (the refusal otherwise
    // is escalations.test.ts's).
    '--owners-decide-own-escalations',
  ]);
  state = up.state;
  // LocalStack's community build serves no Cognito, and local up then offers the emulator's keys.
  person = state.userPoolId
    ? {
        ...(await createPerson(state.userPoolId, 'reviewer@example.com', undefined, APPROVER_GROUPS)),
        kind: 'cognito',
      }
    : { name: 'test', secret: 'test', kind: 'keys' };
  const downloadPath = join(scratch, 'downloads');
  mkdirSync(downloadPath, { recursive: true });
  browser = await launchChromium({ downloadPath });
  page = await browser.newPage();
  setSession({ page, state, person });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await up?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the reviewer app on local up', () => {
  it('prints appUrl beside apiUrl and serves the app with its configuration and security headers', async () => {
    expect(state.appUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(state.appUrl ?? '');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(await page.text()).toMatch(/<script type="module" src="app\.js">/);
    const config = (await (await fetch(new URL('config.json', state.appUrl))).json()) as {
      apiUrl: string;
      signIn: { kind: string };
    };
    expect(config).toMatchObject({ apiUrl: state.apiUrl, signIn: { kind: person.kind } });
    if (inject('awsEmulator') === 'moto') expect(person.kind).toBe('cognito');
    // The API answers the app's preflight as API Gateway's CORS rule does, and no other origin's.
    const preflight = (origin: string) =>
      fetch(new URL('jobs', state.apiUrl), {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
    const ok = await preflight(new URL(state.appUrl ?? '').origin);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect(
      (await preflight('http://elsewhere.example')).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });

  it('uploads with a high gate and a playbook after a quote, fills in live, takes redline and finding decisions and gives the reports', async () => {
    await page.goto(state.appUrl ?? '');
    await page.waitForSelector('#si-name');
    await page.type('#si-name', person.name);
    await page.type('#si-secret', person.secret);
    await page.keyboard.press('Enter');
    if (person.kind === 'cognito') await firstSignIn();
    await until(`document.querySelector('h1')?.textContent === 'Your jobs'`);
    await until(`/job/.test(document.querySelector('main p.muted, main .error')?.textContent ?? '')`);
    expect(await seriousA11yViolations(page), 'job list').toEqual([]);

    await page.click('a[href="#/new"]');
    await page.waitForSelector('#up-file');
    // By keyboard: the view's heading has the focus, and Tab goes to the file input, drawn with a focus ring.
    expect(await read('document.activeElement?.id')).toBe('upload-title');
    await page.keyboard.press('Tab');
    expect(
      await read(`[document.activeElement?.id, getComputedStyle(document.activeElement).outlineStyle]`),
    ).toEqual(['up-file', 'solid']);
    // The ceiling the form offers is the one the server gives a job that names none.
    expect(await read('document.querySelector("#up-ceiling").value')).toBe(
      String(DEFAULT_CEILING_MICROS / 1_000_000),
    );
    const file = join(scratch, CONTRACT);
    writeFileSync(file, fixture(CONTRACT));
    await chooseContract(file);
    await read(
      `(() => { const g = document.querySelector('#up-gate'); g.value = 'high'; g.dispatchEvent(new Event('input', { bubbles: true })); })()`,
    );
    // The stack's playbooks, listed as they arrive: review against the shipped default.
    await until(`document.querySelector('#up-playbook')?.dataset.loaded === '2'`);
    await read(
      `(() => { const p = document.querySelector('#up-playbook'); p.value = 'default@1'; p.dispatchEvent(new Event('input', { bubbles: true })); })()`,
    );
    for (const id of await read<string[]>(
      `[...document.querySelectorAll('input[name=analyst]')].map((b) => b.value)`,
    )) {
      if (!ANALYSTS.includes(id)) await page.click(`#up-analyst-${id}`);
    }
    await page.click('#get-quote');
    const quote = await until<string>(
      `(() => { const t = document.querySelector('#quote')?.textContent ?? ''; return /Quote:/.test(t) || document.querySelector('#quote .error') ? t : ''; })()`,
      60_000,
    );
    expect(quote).toMatch(/Quote: \$\d+\.\d\d expected, \$\d+\.\d\d at worst\. Nothing has been spent\./);
    // The quote read the contract's parties: whose side the review takes, in the contract's words,
    // and each party offered in "Reviewed for", the inferred side left as the first choice.
    expect(quote).toMatch(/Reviewed for: Company \(Kiromic, Inc\), inferred: /);
    expect(
      await read<string[]>(`[...document.querySelectorAll('#up-party option')].map((o) => o.textContent)`),
    ).toEqual([
      "the playbook's side: Company (Kiromic, Inc)",
      'Company (Kiromic, Inc)',
      'Consultant (Gianluca Rotino)',
    ]);
    expect(await read('document.querySelector("#up-party").value')).toBe('');
    expect(await seriousA11yViolations(page), 'upload form').toEqual([]);

    await page.click('#start-review');
    await until(`/^#\\/jobs\\/j-/.test(location.hash)`, 60_000);
    await until(`/default@1/.test(document.querySelector('#job-playbook')?.textContent ?? '')`);
    const samples = await watch((s) => !['', 'queued', 'intake', 'running'].includes(s.status), 240_000);
    const running = samples.filter((s) => s.status === 'running').map((s) => s.received);
    const rises = running.filter((n, i) => i > 0 && n > (running[i - 1] ?? 0)).length + (running[0] ? 1 : 0);
    expect(rises, JSON.stringify(samples)).toBeGreaterThanOrEqual(2);
    expect(samples.at(-1)?.status).toBe('awaiting_review');
    expect(await seriousA11yViolations(page), 'contract view').toEqual([]);

    await page.waitForSelector('form.decision');
    const jobId = (await read<string>('location.hash')).split('/').at(-1) ?? '';
    const seeded = await seedPlaybook(jobId);
    // The person approves for the groups the review now waits for: the job list shows it first.
    await read(`location.hash = '#/jobs'`);
    await page.waitForSelector(`#approvals a[href="#/jobs/${jobId}"]`, { timeout: 30_000 });
    expect(await seriousA11yViolations(page), 'job list with approvals').toEqual([]);
    // By keyboard, as the job list is left below: the link focused, then Enter (its long name
    // wraps, so the middle of its box is between its two lines).
    await read(`document.querySelector('#approvals a[href="#/jobs/${jobId}"]').focus()`);
    await page.keyboard.press('Enter');
    const accepted = seeded.redlines.find((r) => r.topic === 'payment-terms');
    const rejected = seeded.redlines.find((r) => r.topic === 'termination-for-convenience');
    if (!accepted || !rejected) throw new Error('two redlines were seeded');
    // The page reads the review again: each redline is the clause's own text with the proposed
    // language as tracked changes, struck and underlined and named in words, not by colour alone.
    await until(`document.querySelectorAll('form.redline-decision').length === 2`, 30_000);
    const slug = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, '-');
    const diff = await read<{
      del: string;
      ins: string;
      struck: string;
      marked: string;
      heading: string;
    }>(
      `(() => { const li = document.querySelector('#redline-${slug(accepted.id)}');
        const del = li.querySelector('del'); const ins = li.querySelector('ins');
        return { del: del.textContent, ins: ins.textContent, struck: getComputedStyle(del).textDecorationLine,
          marked: getComputedStyle(ins).textDecorationLine, heading: li.querySelector('h4').textContent }; })()`,
    );
    expect(diff).toEqual({
      del: '[deleted: thirty (30)]',
      ins: '[inserted: forty-five (45)]',
      struck: 'line-through',
      marked: 'underline',
      heading: `${accepted.clause.label ?? accepted.clause.id} · payment-terms · fallback 1 → standard`,
    });
    // The escalations wait for the person's groups, the missing clause with its language to insert.
    expect(
      await read<string[]>(
        `[...document.querySelectorAll('form.escalation-decision')].map((f) => f.dataset.finding)`,
      ),
    ).toEqual(seeded.escalations.map((e) => e.id));
    expect(await seriousA11yViolations(page), 'review view with redlines').toEqual([]);
    // The picture shows the page, not where the keyboard left the focus.
    await read('document.activeElement?.blur()');
    const shot = await screenshotOf(page, 'main', 1200, 1800);
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
    // The README's picture: REVIEWER_APP_SCREENSHOT=docs/reviewer-app.png writes it there.
    const target = process.env.REVIEWER_APP_SCREENSHOT;
    if (target) writeFileSync(join(PROJECT_ROOT, target), shot);

    // One redline accepted as proposed, the other rejected with a note.
    await page.click(`form.redline-decision[data-redline="${accepted.id}"] button[type=submit]`);
    await until(`document.querySelectorAll('form.redline-decision').length === 1`);
    await page.click(`#rl-${slug(rejected.id)}-reject`);
    await page.type(`#rl-note-${slug(rejected.id)}`, 'the supplier will not sign it');
    await page.click(`form.redline-decision[data-redline="${rejected.id}"] button[type=submit]`);
    await until(`document.querySelectorAll('form.redline-decision').length === 0`);
    await until(
      `/Redline rejected/.test(document.querySelector('#redline-${slug(rejected.id)} .decided')?.textContent ?? '')`,
    );

    const forms = await read<string[]>(
      `[...document.querySelectorAll('form.decision')].map((f) => f.dataset.finding)`,
    );
    const first = forms[0] ?? '';
    const key = first.replace(/[^a-zA-Z0-9_-]/g, '-');
    await page.click(`#v-${key}-override`);
    await read(
      `(() => { const s = document.querySelector('#score-${key}'); s.value = '1'; s.dispatchEvent(new Event('change', { bubbles: true })); })()`,
    );
    await page.type(`#note-${key}`, 'usual for a consultant: work made for the company');
    await page.click(`form[data-finding="${first}"] button[type=submit]`);
    await until(`document.querySelectorAll('#trail tbody tr').length === 3`);
    expect(await seriousA11yViolations(page), 'review view').toEqual([]);

    // Approving all decides the findings and the escalations the person may decide.
    const escalated = seeded.escalations.length;
    await page.click('#approve-all');
    await until(`document.querySelector('#job-status')?.dataset.status === 'completed'`, 120_000);
    await until(`document.querySelectorAll('#trail tbody tr').length === ${forms.length + escalated + 2}`);
    const trail = await read<string[][]>(
      `[...document.querySelectorAll('#trail tbody tr')].map((r) => [...r.cells].map((c) => c.textContent))`,
    );
    const byPerson =
      person.kind === 'cognito'
        ? expect.stringMatching(new RegExp(`^${person.name.replace(/\./g, '\\.')} \\([0-9a-f-]{36}\\)$`))
        : expect.stringMatching(/test$/);
    expect(trail.find((r) => r[0] === first)).toEqual([
      first,
      'override',
      '1',
      // Who decided: the signed-in person's verified email beside their user pool sub, not the
      // role session they share.
      byPerson,
      expect.any(String),
      'usual for a consultant: work made for the company',
    ]);
    expect(trail.find((r) => r[0] === rejected.id)).toEqual([
      rejected.id,
      'rejected',
      '',
      byPerson,
      expect.any(String),
      'the supplier will not sign it',
    ]);
    expect(trail.find((r) => r[0] === accepted.id)?.[1]).toBe('accepted');
    expect(trail.filter((r) => r[1] === 'approve')).toHaveLength(forms.length - 1 + escalated);
    expect(trail.every((r) => (r[4] ?? '') !== '')).toBe(true);

    await page.waitForSelector('a.download', { timeout: 60_000 });
    // The contract now shows the clauses as decided: the overridden finding says so.
    const clauseId = first.split('/')[0] ?? '';
    await until(
      `/overridden by ${person.kind === 'cognito' ? person.name : 'arn:'}/.test(document.querySelector('#clause-${clauseId}')?.textContent ?? '')`,
    );
    const links = await read<Record<string, string>>(
      `Object.fromEntries([...document.querySelectorAll('a.download')].map((a) => [a.dataset.file, a.href]))`,
    );
    const json = (await (await fetch(links['report.json'] ?? '')).json()) as {
      job: { playbook?: { name: string; version: number } };
      review?: { trail: unknown[]; redlineTrail?: { redlineId: string; status: string; note?: string }[] };
      clauses: { id: string; risk: string | null }[];
    };
    expect(json.review?.trail).toHaveLength(forms.length + escalated);
    expect(json.review?.redlineTrail?.map((r) => [r.redlineId, r.status, r.note])).toEqual([
      [accepted.id, 'accepted', undefined],
      [rejected.id, 'rejected', 'the supplier will not sign it'],
    ]);
    expect(json.job.playbook).toMatchObject({ name: 'default', version: 1 });
    if (links['report.docx']) {
      const downloads = join(scratch, 'downloads');
      await page.click('a[data-file="report.docx"]');
      for (let i = 0; i < 100 && !readdirSync(downloads).some((f) => f.endsWith('.docx')); i++)
        await new Promise((r) => setTimeout(r, 100));
      const docx = readdirSync(downloads).find((f) => f.endsWith('.docx')) ?? '';
      expect(readFileSync(join(downloads, docx)).subarray(0, 2).toString()).toBe('PK');
    }
    // The list shows the job, completed, and nothing else: the quote recorded no job.
    await page.click('a[href="#/jobs"]');
    await until(`!!document.querySelector('a[href="#/jobs/${jobId}"]')`);
    const rows = await read<string[]>(
      `[...document.querySelectorAll('table.jobs tbody tr')].map((r) => r.cells[1].textContent)`,
    );
    expect(rows).toEqual(['completed']);
    expect(await seriousA11yViolations(page), 'job list with jobs').toEqual([]);
    // Back to the job by keyboard: its link focused, then Enter.
    await read(`document.querySelector('a[href="#/jobs/${jobId}"]').focus()`);
    await page.keyboard.press('Enter');
    await page.waitForSelector('a.download', { timeout: 60_000 });
    await until(`document.querySelector('#clause-count')?.dataset.received === '${json.clauses.length}'`);
    // The risk filter keeps the clauses the report rates critical, high or medium, as decided.
    for (const risk of ['critical', 'high', 'medium']) await page.click(`#f-risk-${risk}`);
    const wanted = json.clauses.filter((c) => ['critical', 'high', 'medium'].includes(c.risk ?? ''));
    expect(wanted.length).toBeGreaterThan(0);
    expect(
      (
        await read<string[]>(`[...document.querySelectorAll('#clauses > [id^="clause-"]')].map((e) => e.id)`)
      ).sort(),
    ).toEqual(wanted.map((c) => `clause-${c.id}`).sort());
  }, 420_000);

  it("signs out, and the next sign-in asks for the authenticator's code", async () => {
    if (person.kind !== 'cognito') return;
    await page.click('nav button.link');
    await page.waitForSelector('#si-name');
    await page.type('#si-name', person.name);
    await page.type('#si-secret', 'Own-Reviewer-passw0rd!');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-challenge="mfa-code"]');
    expect(await read('document.activeElement?.id')).toBe('ch-title');
    expect(await seriousA11yViolations(page), 'authenticator code').toEqual([]);
    await page.type('#mfa-code', await freshCode(totpSecret));
    await page.keyboard.press('Enter');
    // Signed in again, on the page the hash names (the job the last test left open).
    await until(
      `/Signed in as reviewer@example\\.com/.test(document.querySelector('nav .who')?.textContent ?? '')`,
    );
    expect(await read('location.hash')).toMatch(/^#\/jobs\/j-/);
  });

  it('pauses, resumes and cancels a running job from its page', async () => {
    await read(`location.hash = '#/new'`);
    await page.waitForSelector('#up-file');
    const file = join(scratch, MEDIUM);
    writeFileSync(file, fixture(MEDIUM));
    await chooseContract(file);
    // The relevance screen runs by default: the quote says what it leaves out, and so does the
    // job's progress; the quote also says what compute costs on either lane.
    await page.click('#get-quote');
    const quote = await until<string>(
      `(() => { const t = document.querySelector('#quote')?.textContent ?? ''; return /Quote:/.test(t) ? t : ''; })()`,
      60_000,
    );
    expect(quote).toMatch(/The relevance screen leaves out \d+ calls, \$\d+\.\d+ expected\./);
    expect(quote).toMatch(
      /Compute besides: \$\d+\.\d+ on Lambda workers \(realtime lane\), \$\d+\.\d+ on Fargate workers \(batch lane\)/,
    );
    await page.click('#start-review');
    await until(`/· \\d+ screened/.test(document.querySelector('main')?.textContent ?? '')`, 60_000);
    const status = (s: string) => `document.querySelector('#job-status')?.dataset.status === '${s}'`;
    await page.waitForSelector('#job-pause', { timeout: 60_000 });
    await page.click('#job-pause');
    await until(status('paused'));
    await page.waitForSelector('#job-resume');
    await page.click('#job-resume');
    await until(`${status('running')} || ${status('intake')}`);
    await page.waitForSelector('#job-cancel');
    await page.click('#job-cancel');
    await until(status('cancelled'), 60_000);
    expect(await read(`!!document.querySelector('#job-pause, #job-resume, #job-cancel')`)).toBe(false);
  }, 180_000);
});

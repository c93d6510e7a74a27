/**
 * The Word add-in's task pane in headless Chromium against `local up` (a real process), with
 * Office.js's part played by a host the test gives the pane (test/helpers/addin-test-host.ts):
 * the sign-in page Office's dialog would open, signing in a person an administrator created (a
 * new password, an authenticator set up) by SRP; the pane signed in with what that page sent, the
 * dialog's own sign-in revoked; the open
 * document (a .docx of a CUAD contract, with Word's smart apostrophes and a later paragraph
 * edited since) quoted and reviewed with a `high` gate; clauses at medium risk or above listed
 * and commented on while the job runs, the edited ones reported instead; the gate's findings
 * approved from the pane; and, opened again, the pane offering the review of the same file.
 * axe-core finds no serious or critical violation on any view; a picture of the pane is written
 * when WORD_ADDIN_SCREENSHOT names a file (docs/word-addin.png).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalState } from '../../bin/commands/local-state.js';
import { DocumentText } from '../../lambdas/app/addin/clause-text.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { buildDocx } from '../fixtures/documents/builders.js';
import type { TestComment, TestHostInput } from '../helpers/addin-test-host.js';
import {
  launchChromium,
  pageUntil,
  pageValue,
  screenshotOf,
  seriousA11yViolations,
} from '../helpers/chromium.js';
import { uniquePrefix } from '../helpers/local-aws.js';
import { createPerson, type LocalUp, startLocalUp } from '../helpers/local-up.js';
import { theirAnswer } from '../helpers/negotiation-round.js';
import { fixture } from '../helpers/pipeline.js';
import { freshCode } from '../helpers/totp.js';

/** 18 KB, five chunks; the learned analyst rates clauses of it high and critical. */
const CONTRACT = 'KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT.txt';
const NAME = 'Kiromic consulting agreement.docx';
/** An HTTPS proxy in front of the app, as Word needs (docs/word-addin.md). */
const PROXY = 'https://localhost:3000';

const scratch = mkdtempSync(join(tmpdir(), 'clause-review-addin-'));
let up: LocalUp | undefined;
let state: LocalState;
let browser: Browser;
let page: Page;
let hostScript: string;
/** The document as uploaded, and as "Word" holds it now. */
let paragraphs: string[];
let inWord: string[];
/** Who signed in, and their authenticator's secret once set up. */
let person: { name: string; password: string; totp: string } | undefined;

beforeAll(async () => {
  // One realtime invocation at a time, each call answered after 300 ms: chunks consolidate
  // seconds apart, so findings arrive while the job runs.
  up = await startLocalUp(scratch, [
    '--prefix',
    uniquePrefix('addin'),
    '--latency-ms',
    '300',
    '--invocations',
    '1',
    '--https-origin',
    PROXY,
  ]);
  state = up.state;
  paragraphs = fixture(CONTRACT)
    .toString('utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  // Word's AutoFormat turned apostrophes into smart ones; someone has since edited the contract
  // from its Term and Termination section on ("notice" became "notification"), where the offline
  // analyst finds a medium risk (either party may terminate on notice).
  const edited = paragraphs.findIndex((p) => p.startsWith('5. Term and Termination.'));
  if (edited < 0) throw new Error(`${CONTRACT} has no Term and Termination section`);
  inWord = paragraphs.map((p, i) =>
    (i < edited ? p : p.replaceAll('notice', 'notification')).replaceAll("'", '\u2019'),
  );
  const r = await build({
    entryPoints: [join(import.meta.dirname, '../helpers/addin-test-host.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'clauseReviewTestHost',
    platform: 'browser',
    logLevel: 'silent',
  });
  hostScript = r.outputFiles[0]?.text ?? '';
  browser = await launchChromium();
  page = await browser.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await up?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const read = <T>(expression: string) => pageValue<T>(page, expression);
const until = <T>(expression: string, timeout?: number) => pageUntil<T>(page, expression, timeout);

/**
 * The sign-in page as Office's dialog shows it (its own window), with Office's `messageParent`
 * in place: what the page sends the pane, once the person is signed in.
 */
async function signInThroughDialog(): Promise<string> {
  await page.goto(`${state.appUrl}addin/sign-in.html`);
  await page.waitForSelector('#si-name');
  // Office's messageParent; and the refresh tokens Cognito hands the page, kept to show that
  // the dialog's sign-in is revoked once the pane has its credentials.
  await read(
    `window.Office = { context: { ui: { messageParent: (m) => { window.sentToPane = m; } } } };
     window.refreshTokens = [];
     window.fetch = ((pageFetch) => async (...args) => {
       const r = await pageFetch(...args);
       await r.clone().json().then((b) => {
         if (b?.AuthenticationResult?.RefreshToken) window.refreshTokens.push(b.AuthenticationResult.RefreshToken);
       }, () => {});
       return r;
     })(window.fetch.bind(window)); 0`,
  );
  expect(await seriousA11yViolations(page), 'sign-in page').toEqual([]);
  if (!state.userPoolId) {
    await page.type('#si-name', 'test');
    await page.type('#si-secret', 'test');
    await page.keyboard.press('Enter');
  } else if (person) {
    // Signed in before: the password chosen then, and the authenticator's code.
    await page.type('#si-name', person.name);
    await page.type('#si-secret', person.password);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-challenge="mfa-code"]');
    await page.type('#mfa-code', await freshCode(person.totp));
    await page.keyboard.press('Enter');
  } else {
    // A first sign-in: a password of the person's own, then an authenticator app.
    const created = await createPerson(state.userPoolId, 'counsel@example.com');
    await page.type('#si-name', created.name);
    await page.type('#si-secret', created.secret);
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-challenge="new-password"]');
    await page.type('#np-password', 'Own-Counsel-passw0rd!');
    await page.type('#np-confirm', 'Own-Counsel-passw0rd!');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-challenge="mfa-setup"]');
    expect(await seriousA11yViolations(page), 'authenticator setup').toEqual([]);
    const totp = (await read<string>(`document.querySelector('#mfa-secret').textContent`)).replace(/ /g, '');
    await page.type('#mfa-setup-code', await freshCode(totp));
    await page.keyboard.press('Enter');
    person = { name: created.name, password: 'Own-Counsel-passw0rd!', totp };
  }
  const sent = await until<string>('window.sentToPane', 30_000);
  expect(await read('document.querySelector("main [role=status]")?.textContent')).toMatch(
    /^Signed in as .+\. This window closes now\.$/,
  );
  expect(await read('document.querySelector("main .error")')).toBeNull();
  if (state.userPoolId) {
    // The dialog's own sign-in ended when it handed the pane its credentials: its refresh token
    // no longer renews anything.
    const tokens = await read<string[]>('window.refreshTokens');
    expect(tokens).toHaveLength(1);
    const refresh = await fetch(state.awsEndpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth',
      },
      body: JSON.stringify({
        AuthFlow: 'REFRESH_TOKEN_AUTH',
        ClientId: state.userPoolClientId,
        AuthParameters: { REFRESH_TOKEN: tokens[0] },
      }),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.text()).toMatch(/NotAuthorizedException.*Refresh Token has been revoked/);
  }
  return sent;
}

/** Opens the task pane and starts it with the test's host (the contract, unless `open` gives another document); the pane then asks to sign in. */
async function openPane(message: string, open?: Omit<TestHostInput, 'message'>): Promise<void> {
  await page.goto(`${state.appUrl}addin/taskpane.html`);
  // Outside Word, office.js finds no host: the pane says where it belongs and waits for one.
  await page.waitForSelector('#not-in-word');
  const input: TestHostInput = {
    ...(open ?? {
      name: NAME,
      docx: Buffer.from(buildDocx(paragraphs)).toString('base64'),
      paragraphs: inWord,
    }),
    message,
  };
  await read(
    `${hostScript}; window.testHost = clauseReviewTestHost.createTestHost(${JSON.stringify(input)});
     clauseReviewAddin.start(window.testHost); 0`,
  );
  await page.waitForSelector('#sign-in');
  await page.click('#sign-in');
  await until(`document.activeElement?.id === 'doc-title'`);
}

describe('the Word add-in on local up', () => {
  it('is served beside the app, and the API answers the HTTPS proxy in front of it as it answers the app', async () => {
    const pane = await fetch(`${state.appUrl}addin/taskpane.html`);
    expect(pane.status).toBe(200);
    expect(pane.headers.get('content-security-policy')).toMatch(
      /frame-ancestors https:\/\/\*\.officeapps\.live\.com/,
    );
    const preflight = (origin: string) =>
      fetch(new URL('jobs', state.apiUrl), {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
    for (const origin of [new URL(state.appUrl ?? '').origin, PROXY]) {
      const ok = await preflight(origin);
      expect(ok.status, origin).toBe(204);
      expect(ok.headers.get('access-control-allow-origin'), origin).toBe(origin);
    }
    expect(
      (await preflight('https://elsewhere.example')).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });

  it('signs in through the dialog, reviews the open document, comments while the job runs, and decides the gate', async () => {
    const message = await signInThroughDialog();
    expect(JSON.parse(message)).toMatchObject({
      kind: 'clause-review/signed-in',
      credentials: { accessKeyId: expect.any(String) },
    });
    await openPane(message);
    expect(await read(`document.querySelector('#nav .who')?.textContent`)).toMatch(/^Signed in as /);
    await until(`document.querySelector('#earlier')?.dataset.checked === '0'`);
    await until(`document.querySelector('#rv-playbook')?.dataset.loaded !== undefined`);
    expect(await seriousA11yViolations(page), 'document view').toEqual([]);
    await read(
      `(() => { const g = document.querySelector('#rv-gate'); g.value = 'high'; g.dispatchEvent(new Event('input', { bubbles: true })); })()`,
    );
    await page.click('#get-quote');
    const quote = await until<string>(
      `(() => { const t = document.querySelector('#quote')?.textContent ?? ''; return /Quote:|error/i.test(t) || document.querySelector('#quote .error') ? t : ''; })()`,
      60_000,
    );
    expect(quote).toMatch(/Quote: \$\d+\.\d\d expected, \$\d+\.\d\d at worst\. Nothing has been spent\./);
    await page.click('#start-review');
    await page.waitForSelector('#job-status', { timeout: 60_000 });

    // Findings arrive while the job runs, each placed (or reported) as it comes.
    const seen: { status: string; shown: number }[] = [];
    for (const deadline = Date.now() + 300_000; ; ) {
      const s = await read<{ status: string; shown: number }>(
        `({ status: document.querySelector('#job-status')?.dataset.status ?? '', shown: Number(document.querySelector('#finding-count')?.dataset.shown ?? 0) })`,
      );
      seen.push(s);
      if (!['', 'queued', 'intake', 'running'].includes(s.status)) break;
      if (Date.now() > deadline) throw new Error(`gave up: ${JSON.stringify(seen.slice(-3))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const running = seen.filter((s) => s.status === 'running').map((s) => s.shown);
    expect(new Set(running).size, JSON.stringify(seen)).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)?.status).toBe('awaiting_review');
    await until(
      `![...document.querySelectorAll('.placement')].some((p) => p.dataset.placement === 'pending')`,
    );
    expect(await seriousA11yViolations(page), 'findings').toEqual([]);

    // Each listed clause was commented on exactly where Word holds its text, or reported.
    const listed = await read<{ id: string; risk: string; placement: string }[]>(
      `[...document.querySelectorAll('#findings > li')].map((li) => ({ id: li.id.replace('finding-', ''), risk: li.dataset.risk, placement: li.querySelector('.placement').dataset.placement }))`,
    );
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((c) => ['critical', 'high', 'medium'].includes(c.risk))).toBe(true);
    const comments = await read<TestComment[]>('window.testHost.comments');
    const added = listed.filter((c) => c.placement === 'added').map((c) => c.id);
    expect(comments.map((c) => c.clauseId).sort()).toEqual([...added].sort());
    expect(added.length).toBeGreaterThan(0);
    expect(listed.filter((c) => c.placement === 'missing').length).toBeGreaterThan(0);
    const word = new DocumentText(inWord);
    for (const c of comments) {
      expect(c.content).toMatch(
        new RegExp(
          `^clause-review · job j-[0-9a-f]+ · clause ${c.clauseId} · (critical|high|medium) risk\\n`,
        ),
      );
      expect(word.locate(c.anchored.replaceAll('\r', '\n')).kind).toBe('placed');
    }

    // The gate's findings, decided from the pane with the app's own review panel.
    await page.waitForSelector('#approve-all', { timeout: 60_000 });
    expect(await seriousA11yViolations(page), 'review').toEqual([]);
    const shot = await screenshotOf(page, 'main', 380, 1400);
    expect(shot.subarray(1, 4).toString()).toBe('PNG');
    const target = process.env.WORD_ADDIN_SCREENSHOT;
    if (target) writeFileSync(join(PROJECT_ROOT, target), shot);
    await page.click('#approve-all');
    await until(`document.querySelector('#job-status')?.dataset.status === 'completed'`, 120_000);
    await until(`document.querySelectorAll('#trail tbody tr').length > 0`);
  }, 480_000);

  it('opened again on the same file, offers the review it had', async () => {
    const message = await signInThroughDialog();
    await openPane(message);
    await until(`document.querySelector('#earlier')?.dataset.checked === '1'`);
    expect(await read(`document.querySelector('#earlier .follow')?.textContent`)).toMatch(/^Follow j-/);
    expect(await read(`document.querySelector('#earlier li')?.textContent`)).toMatch(
      /completed, the same file/,
    );
    await page.click('#earlier .follow');
    await until(`document.querySelector('#job-status')?.dataset.status === 'completed'`, 60_000);
    // Its comments are placed again in this (new) Word session, once each.
    await until(
      `![...document.querySelectorAll('.placement')].some((p) => p.dataset.placement === 'pending')`,
    );
    const ids = await read<string[]>('window.testHost.comments.map((c) => c.clauseId)');
    expect(new Set(ids).size).toBe(ids.length);
  }, 180_000);

  it('lists the other side’s changes in a document they answered, each judged, and says where to decide them', async () => {
    const message = await signInThroughDialog();
    const answer = theirAnswer(true);
    await openPane(message, {
      name: 'Hosting agreement (their answer).docx',
      docx: Buffer.from(answer).toString('base64'),
      paragraphs: [
        '1. Services. The Supplier provides the hosting services.',
        "2. Liability. Each party's total liability is limited to the fees paid in the one (1) month before the claim.",
        '3. Term. This Agreement renews for five (5) years at a time.',
        '4. Suspension. The Supplier may suspend the services in its sole discretion and without notice.',
      ],
    });
    await until(`document.querySelector('#rv-against')?.options.length >= 1`);
    await page.click('#get-quote');
    await until(`/Quote:/.test(document.querySelector('#quote')?.textContent ?? '')`, 60_000);
    await page.click('#start-review');
    await until(`document.querySelectorAll('#their-changes > li').length === 3`, 180_000);
    const changes = await read<{ id: string; verdict: string; text: string }[]>(
      `[...document.querySelectorAll('#their-changes > li')].map((li) => ({ id: li.dataset.change, verdict: li.dataset.verdict, text: li.textContent }))`,
    );
    expect(changes.map((c) => c.id)).toEqual(['n1', 'n2', 'n3']);
    for (const c of changes) {
      expect(['accept', 'reject', 'counter']).toContain(c.verdict);
      expect(c.text).toContain('by Opposing Counsel');
    }
    expect(await read(`document.querySelector('#their-changes-line')?.textContent`)).toMatch(
      /^Their changes: 3 — accept \d, reject \d, counter \d so far$/,
    );
    // The test host, like a Word without WordApi 1.6, decides no tracked change: the pane says so.
    expect(await read(`document.querySelector('#decide-support')?.hidden`)).toBe(false);
    expect(await read(`document.querySelectorAll('#their-changes [data-decide]').length`)).toBe(0);
    expect(await seriousA11yViolations(page), 'their changes').toEqual([]);
  }, 300_000);
});

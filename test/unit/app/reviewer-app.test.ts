/**
 * The reviewer app's logic outside the browser: signing with Web Crypto (checked by the local
 * API's verifier), its configuration, the contract view's filters and quote highlights.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppApi, isAppApiError } from '../../../lambdas/app/api.js';
import { facets, matches, segments } from '../../../lambdas/app/clauses.js';
import { isAppConfigError, readAppConfig } from '../../../lambdas/app/config.js';
import { isSignInError, signIn } from '../../../lambdas/app/session.js';
import { WebSha256 } from '../../../lambdas/app/sha256-web.js';
import { mapStep, type SignInStep as SignInStepOf } from '../../../lambdas/app/sign-in-step.js';
import { totpUri } from '../../../lambdas/app/user-pool.js';
import { groupedSecret } from '../../../lambdas/app/views/sign-in-challenge.js';
import type { ReportClause } from '../../../lambdas/core/report-types.js';
import { Sha256 } from '../../../lambdas/shared/sha256.js';
import { localAppConfig } from '../../../localstack/runtime/local-app.js';
import { verifySigV4 } from '../../../localstack/sigv4-verify.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

const APP = resolve(import.meta.dirname, '../../../lambdas/app');
/** Browser-safe code the app shares with the pipeline (test/unit/rules/import-boundaries.test.ts keeps it so). */
const TEXT = resolve(import.meta.dirname, '../../../lambdas/text');

/** Imports of an app file that reach outside lambdas/app/ and lambdas/text/ with values, not only types. */
function valueImportsOutside(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/^(import|export)(\s+type)?\b[^;]*?from\s+['"](\.[^'"]+)['"]/gms)) {
    const target = resolve(dirname(file), m[3] ?? '');
    if (!target.startsWith(`${APP}/`) && !target.startsWith(`${TEXT}/`) && !m[2])
      found.push(`${relative(APP, file)} → ${relative(APP, target)}`);
  }
  return found;
}

describe('the app bundle boundary', () => {
  it('browser code takes values only from lambdas/text/, and only types from the rest of lambdas/ (nothing of node or the pipeline is bundled)', () => {
    const files = readdirSync(APP, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    expect(
      files.flatMap((f) => valueImportsOutside(join(APP, f), readFileSync(join(APP, f), 'utf8'))),
    ).toEqual([]);
    expect(
      valueImportsOutside(
        join(APP, 'x.ts'),
        "import { ANALYSTS } from '../core/analysts/registry.js';\nimport type { Job } from '../core/state/jobs.js';\nimport { money } from '../text/money.js';",
      ),
    ).toEqual(['x.ts → ../core/analysts/registry.js']);
  });
});

describe('WebSha256', () => {
  it('hashes and HMACs as node:crypto does, across several updates', async () => {
    for (const secret of [undefined, 'key', new Uint8Array([1, 2, 3])]) {
      const web = new WebSha256(secret);
      const node = new Sha256(secret);
      for (const part of ['AWS4', new Uint8Array([0, 255, 7]), 'tail']) {
        web.update(part);
        node.update(part);
      }
      expect(hex(await web.digest())).toBe(hex(await node.digest()));
    }
    expect(hex(await new WebSha256().digest())).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
  });
});

describe('AppApi', () => {
  const captured: { url: URL; init: RequestInit }[] = [];
  const answer = (status: number, body: unknown): typeof fetch =>
    (async (url: URL, init: RequestInit) => {
      captured.push({ url: new URL(url), init });
      return new Response(JSON.stringify(body), { status });
    }) as typeof fetch;
  const api = (status: number, body: unknown) =>
    new AppApi({
      url: 'http://127.0.0.1:4567/',
      region: 'eu-west-1',
      credentials: async () => ({ accessKeyId: 'test', secretAccessKey: 'test' }),
      fetch: answer(status, body),
    });

  it('signs requests the local API verifier accepts, query and body included, without a Host header', async () => {
    captured.length = 0;
    await api(200, { jobs: [] }).jobs({ after: 'v1.abc' });
    await api(200, { recorded: [] }).decide('j-1', { findings: ['c1/liability'], verdict: 'approve' });
    for (const { url, init } of captured) {
      const headers = Object.fromEntries(
        Object.entries(init.headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
      );
      expect(headers.host).toBeUndefined();
      const body = new TextEncoder().encode(typeof init.body === 'string' ? init.body : '');
      const verdict = await verifySigV4(
        {
          method: init.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: { ...headers, host: url.host },
          body,
        },
        { region: 'eu-west-1', secretOf: (id) => (id === 'test' ? 'test' : undefined) },
      );
      expect(verdict).toEqual({ ok: true, accessKeyId: 'test' });
    }
    expect(captured[0]?.url.searchParams.get('after')).toBe('v1.abc');
  });

  it("turns an error answer into an AppApiError carrying the API's message and status", async () => {
    const error = await api(409, { message: 'job j-1 is running' })
      .report('j-1')
      .catch((e: unknown) => e);
    expect(isAppApiError(error) && [error.status, error.message]).toEqual([409, 'job j-1 is running']);
  });
});

describe('readAppConfig and signIn', () => {
  const analysts = [{ id: 'ip-counsel', name: 'IP counsel' }];
  it('accepts a keys configuration and names the field at fault otherwise', () => {
    expect(
      readAppConfig({
        apiUrl: 'http://127.0.0.1:1/',
        region: 'eu-west-1',
        signIn: { kind: 'keys' },
        analysts,
      }),
    ).toMatchObject({ signIn: { kind: 'keys' } });
    const bad = (v: unknown) => {
      try {
        readAppConfig(v);
        return 'accepted';
      } catch (e) {
        return isAppConfigError(e) ? e.message : 'other';
      }
    };
    expect(bad({ apiUrl: 'ftp://x', region: 'r', signIn: { kind: 'keys' }, analysts })).toMatch(/apiUrl/);
    expect(bad({ apiUrl: 'http://x', region: 'r', signIn: { kind: 'sso' }, analysts })).toMatch(
      /signIn\.kind/,
    );
    expect(
      bad({ apiUrl: 'http://x', region: 'r', signIn: { kind: 'cognito', userPoolId: 'p' }, analysts }),
    ).toMatch(/signIn\.clientId/);
    expect(bad({ apiUrl: 'http://x', region: 'r', signIn: { kind: 'keys' }, analysts: [] })).toMatch(
      /analysts/,
    );
  });

  it("reads what local up serves: the emulator's keys, or its Cognito pools at the emulator's endpoint", () => {
    const keys = readAppConfig(localAppConfig('http://127.0.0.1:1/', 'us-east-1'));
    expect(keys.signIn.kind).toBe('keys');
    expect(keys.analysts.map((a) => a.id)).toContain('liability-counsel');
    const pools = {
      userPoolId: 'us-east-1_x',
      clientId: 'c',
      identityPoolId: 'us-east-1:i',
      endpoint: 'http://127.0.0.1:2',
    };
    expect(readAppConfig(localAppConfig('http://127.0.0.1:1/', 'us-east-1', pools)).signIn).toEqual({
      kind: 'cognito',
      ...pools,
    });
  });

  it('shows an authenticator secret in groups of four, and as a key URI naming the account', () => {
    expect(groupedSecret('JBSWY3DPEHPK3PXPJBSWY3DPEH')).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EH');
    expect(totpUri('JBSWY3DPEHPK3PXP', 'o’neill+cr@example.com')).toBe(
      'otpauth://totp/clause-review:o%E2%80%99neill%2Bcr%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=clause-review',
    );
  });

  it('signs in with a key pair held in memory, and refuses an empty field', async () => {
    const step = await signIn({ kind: 'keys' }, { name: ' test ', secret: 'test' });
    if (step.kind !== 'done') throw new Error(`a key pair signs in at once, not with ${step.kind}`);
    expect(step.session.who).toBe('test');
    expect(await step.session.credentials()).toEqual({ accessKeyId: 'test', secretAccessKey: 'test' });
    const refused = await signIn({ kind: 'keys' }, { name: 'test', secret: '' }).catch((e: unknown) => e);
    expect(isSignInError(refused) && refused.message).toMatch(/secret access key/);
    // Signing out forgets the pair: the session hands out nothing after it.
    await step.session.signOut();
    const after = await step.session.credentials().catch((e: unknown) => e);
    expect(isSignInError(after) && after.message).toBe('signed out: sign in again');
  });

  it('maps each step of a sign-in to the next, its end, and its refusals', async () => {
    type Pool = SignInStepOf<string>;
    const end: Pool = { kind: 'done', session: 'tokens' };
    const code: Pool = {
      kind: 'mfa-code',
      answer: async (c) => {
        if (c !== '123456') throw new Error('Invalid code');
        return end;
      },
    };
    const first: Pool = { kind: 'new-password', answer: async () => code };
    const mapped = await mapStep(
      first,
      async (t) => `session of ${t}`,
      (e) => new Error(`refused: ${(e as Error).message}`),
    );
    if (mapped.kind !== 'new-password') throw new Error(`expected new-password, got ${mapped.kind}`);
    const next = await mapped.answer('pw');
    if (next.kind !== 'mfa-code') throw new Error(`expected mfa-code, got ${next.kind}`);
    await expect(next.answer('000000')).rejects.toThrow('refused: Invalid code');
    expect(await next.answer('123456')).toEqual({ kind: 'done', session: 'session of tokens' });
  });
});

const clause = (over: Partial<ReportClause>): ReportClause => ({
  id: 'c0001',
  index: 0,
  chunk: 0,
  start: 100,
  end: 160,
  text: 'The Supplier shall indemnify the Buyer against all losses whatsoever.',
  status: 'analysed',
  risk: 'high',
  maxScore: 3,
  scores: {},
  findings: [],
  analystsAnswered: [],
  analystsFailed: [],
  ...over,
});

const finding = (category: string, quote: string, start: number, analysts: string[]) => ({
  category,
  score: 3,
  quote,
  start,
  end: start + quote.length,
  rationale: 'r',
  analysts,
});

describe('the contract view', () => {
  const c = clause({
    findings: [
      finding('indemnity', 'shall indemnify the Buyer', 113, ['liability-counsel']),
      finding('liability', 'the Buyer against all losses', 128, ['risk-transfer']),
      // Offsets off by some: found by its words instead.
      finding('scope', 'whatsoever', 5, ['risk-transfer']),
      finding('missing', 'not in the clause', 100, ['ip-counsel']),
    ],
  });

  it('cuts the text where quotes begin and end, overlaps marked with both categories', () => {
    const parts = segments(c);
    expect(parts.map((p) => p.text).join('')).toBe(c.text);
    expect(parts).toEqual([
      { text: 'The Supplier ', categories: [] },
      { text: 'shall indemnify ', categories: ['indemnity'] },
      { text: 'the Buyer', categories: ['indemnity', 'liability'] },
      { text: ' against all losses', categories: ['liability'] },
      { text: ' ', categories: [] },
      { text: 'whatsoever', categories: ['scope'] },
      { text: '.', categories: [] },
    ]);
  });

  it('filters by risk, category and analyst together, and lists the choices', () => {
    const low = clause({ id: 'c2', risk: 'low', findings: [] });
    expect(matches(c, { risks: new Set() })).toBe(true);
    expect(matches(c, { risks: new Set(['critical']) })).toBe(false);
    expect(matches(low, { risks: new Set(['low']) })).toBe(true);
    expect(matches(c, { risks: new Set(), category: 'indemnity', analyst: 'liability-counsel' })).toBe(true);
    expect(matches(c, { risks: new Set(), category: 'indemnity', analyst: 'risk-transfer' })).toBe(false);
    expect(matches(low, { risks: new Set(), analyst: 'risk-transfer' })).toBe(false);
    expect(facets([c, low])).toEqual({
      categories: ['indemnity', 'liability', 'missing', 'scope'],
      analysts: ['ip-counsel', 'liability-counsel', 'risk-transfer'],
    });
  });
});

import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../bin/client/api-client.js';
import { checkSigV4Headers, verifySigV4 } from '../../localstack/sigv4-verify.js';

const URL_BASE = 'http://127.0.0.1:4010/';
const secrets: Record<string, string> = { AKID: 'secret' };

async function signed(options: { region?: string; secret?: string; body?: unknown; path?: string } = {}) {
  const client = new ApiClient({
    url: URL_BASE,
    region: options.region ?? 'us-east-1',
    credentials: { accessKeyId: 'AKID', secretAccessKey: options.secret ?? 'secret' },
  });
  const s = await client.sign(
    options.body === undefined ? 'GET' : 'POST',
    options.path ?? 'jobs/j-1',
    options.body,
  );
  const headers = Object.fromEntries(Object.entries(s.headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    method: options.body === undefined ? 'GET' : 'POST',
    path: s.url.pathname,
    query: Object.fromEntries(s.url.searchParams),
    headers,
    body: Buffer.from(s.payload ?? ''),
  };
}

const verify = (request: Awaited<ReturnType<typeof signed>>, now = Date.now) =>
  verifySigV4(request, { region: 'us-east-1', secretOf: (id) => secrets[id], now });

describe('verifySigV4', () => {
  it('accepts what the CLI signs, with or without a body', async () => {
    expect(await verify(await signed())).toEqual({ ok: true, accessKeyId: 'AKID' });
    expect(await verify(await signed({ body: { filename: 'a.txt' }, path: 'jobs' }))).toEqual({
      ok: true,
      accessKeyId: 'AKID',
    });
  });

  it('refuses a missing signature, an unknown key, another region, a wrong secret and a changed path', async () => {
    const r = await signed();
    const { authorization: _, ...unsigned } = r.headers;
    expect(await verify({ ...r, headers: unsigned })).toEqual({
      ok: false,
      message: 'Missing Authentication Token',
    });
    expect(await verifySigV4(r, { region: 'us-east-1', secretOf: () => undefined })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/security token .* invalid/),
    });
    expect(await verify(await signed({ region: 'eu-west-1' }))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/scoped to region 'us-east-1'/),
    });
    expect(await verify(await signed({ secret: 'wrong' }))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/signature we calculated does not match/),
    });
    expect(await verify({ ...r, path: '/jobs/j-2' })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/signature we calculated does not match/),
    });
  });

  it('refuses a request signed more than 15 minutes away from now', async () => {
    const r = await signed();
    expect(await verify(r, () => Date.now() + 16 * 60_000)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Signature expired/),
    });
    expect((await verify(r, () => Date.now() + 14 * 60_000)).ok).toBe(true);
  });
});

describe('checkSigV4Headers', () => {
  const check = (request: Awaited<ReturnType<typeof signed>>) =>
    checkSigV4Headers(request, { region: 'us-east-1', secretOf: (id) => secrets[id] });

  it('passes a well-signed request on its headers alone, leaving the body to verifySigV4', async () => {
    const request = await signed({ body: { filename: 'a.txt' }, path: 'jobs' });
    const { body: _body, ...headersOnly } = request;
    expect(check({ ...headersOnly, body: Buffer.alloc(0) })).toEqual({ ok: true, accessKeyId: 'AKID' });
    // The changed body is caught only by the full check.
    const tampered = { ...request, body: Buffer.from('{"filename":"b.txt"}') };
    expect(check(tampered).ok).toBe(true);
    expect((await verify(tampered)).ok).toBe(false);
  });

  it('refuses an unsigned request, an unknown key and a wrong region without a body', async () => {
    const request = await signed();
    const { authorization: _auth, ...unsigned } = request.headers;
    expect(check({ ...request, headers: unsigned })).toEqual({
      ok: false,
      message: 'Missing Authentication Token',
    });
    const unknown = await signed();
    expect(checkSigV4Headers(unknown, { region: 'us-east-1', secretOf: () => undefined })).toEqual({
      ok: false,
      message: 'The security token included in the request is invalid.',
    });
    expect(check(await signed({ region: 'eu-west-1' }))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/scoped to region 'us-east-1'/),
    });
  });
});

import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../../bin/client/api-client.js';
import { checkSigV4Headers, verifySigV4 } from '../../../localstack/sigv4-verify.js';

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

/**
 * A SigV4 signer written from AWS's own steps
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html), apart from the
 * SDK's: it signs exactly the headers it is given (a `user-agent`, a `content-type`, no
 * `x-amz-content-sha256`), as curl, botocore and Postman do.
 */
function specSigned(options: {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  headers: Record<string, string>;
  body?: string;
  secret?: string;
  at?: Date;
}) {
  const at = (options.at ?? new Date()).toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
  const day = at.slice(0, 8);
  const headers: Record<string, string> = { ...options.headers, 'x-amz-date': at };
  const names = Object.keys(headers)
    .map((h) => h.toLowerCase())
    .sort();
  const encode = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const query = Object.entries(options.query ?? {})
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .sort()
    .join('&');
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  const canonical = [
    options.method,
    options.path.split('/').map(encode).join('/'),
    query,
    names.map((n) => `${n}:${(headers[n] ?? '').trim()}\n`).join(''),
    names.join(';'),
    sha(options.body ?? ''),
  ].join('\n');
  const scope = `${day}/us-east-1/execute-api/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', at, scope, sha(canonical)].join('\n');
  const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  let key = hmac(`AWS4${options.secret ?? 'secret'}`, day);
  for (const part of ['us-east-1', 'execute-api', 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return {
    method: options.method,
    path: options.path,
    query: options.query ?? {},
    headers: {
      ...headers,
      authorization: `AWS4-HMAC-SHA256 Credential=AKID/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
    },
    body: Buffer.from(options.body ?? ''),
  };
}

describe('verifySigV4 and signers other than the SDK', () => {
  const host = '127.0.0.1:4010';

  it('accepts a signature of exactly the headers the caller chose, with no payload hash header', async () => {
    // As curl --aws-sigv4 signs a GET: host and x-amz-date only.
    expect(await verify(specSigned({ method: 'GET', path: '/jobs', headers: { host } }))).toEqual({
      ok: true,
      accessKeyId: 'AKID',
    });
    // A header the SDK would leave unsigned (user-agent), a query, a body with its content type.
    const posted = specSigned({
      method: 'POST',
      path: '/jobs',
      query: { awaiting: 'approval', after: 'v1.a b' },
      headers: { host, 'user-agent': 'Postman/11', 'content-type': 'application/json' },
      body: '{"filename":"msa.pdf"}',
    });
    expect(await verify(posted)).toEqual({ ok: true, accessKeyId: 'AKID' });
  });

  it('refuses such a signature once anything it signed changed, or with the wrong secret', async () => {
    const posted = specSigned({
      method: 'POST',
      path: '/jobs',
      headers: { host, 'user-agent': 'Postman/11', 'content-type': 'application/json' },
      body: '{"filename":"msa.pdf"}',
    });
    const mismatch = { ok: false, message: expect.stringMatching(/signature we calculated does not match/) };
    expect(await verify({ ...posted, body: Buffer.from('{"filename":"nda.pdf"}') })).toMatchObject(mismatch);
    expect(await verify({ ...posted, headers: { ...posted.headers, 'user-agent': 'curl/8' } })).toMatchObject(
      mismatch,
    );
    expect(
      await verify(specSigned({ method: 'GET', path: '/jobs', headers: { host }, secret: 'wrong' })),
    ).toMatchObject(mismatch);
  });
});

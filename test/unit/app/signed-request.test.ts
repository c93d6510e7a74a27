import { describe, expect, it } from 'vitest';
import { WebSha256 } from '../../../lambdas/app/sha256-web.js';
import { ApiSigner } from '../../../lambdas/app/signed-request.js';
import { Sha256 } from '../../../lambdas/shared/sha256.js';
import { verifySigV4 } from '../../../localstack/sigv4-verify.js';

const credentials = { accessKeyId: 'AKID', secretAccessKey: 'secret' };

/** What the verifier API Gateway stands for reads of a signed request. */
async function verified(
  sha256: typeof Sha256 | typeof WebSha256,
  query: Record<string, string>,
  body?: unknown,
) {
  const signer = new ApiSigner({
    url: 'http://127.0.0.1:4010/prod',
    region: 'eu-west-1',
    credentials,
    sha256,
  });
  const s = await signer.sign(body === undefined ? 'GET' : 'POST', '/jobs', body, query);
  const headers = Object.fromEntries(Object.entries(s.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const result = await verifySigV4(
    {
      method: body === undefined ? 'GET' : 'POST',
      path: s.url.pathname,
      query: Object.fromEntries(s.url.searchParams),
      headers,
      body: Buffer.from(s.payload ?? ''),
    },
    { region: 'eu-west-1', secretOf: (id) => (id === 'AKID' ? 'secret' : undefined) },
  );
  return { result, url: s.url.href, payload: s.payload, contentType: headers['content-type'] };
}

describe('the one signer of the app, the add-in and the CLI', () => {
  it("signs a request under the API's own path, with its query and JSON body, as the verifier reads it", async () => {
    for (const sha256 of [Sha256, WebSha256]) {
      const get = await verified(sha256, { awaiting: 'approval', after: 'x y' });
      expect(get.result).toEqual({ ok: true, accessKeyId: 'AKID' });
      expect(get.url).toBe('http://127.0.0.1:4010/prod/jobs?awaiting=approval&after=x+y');
      const post = await verified(sha256, {}, { filename: 'msa.pdf' });
      expect(post.result).toEqual({ ok: true, accessKeyId: 'AKID' });
      expect([post.payload, post.contentType]).toEqual(['{"filename":"msa.pdf"}', 'application/json']);
    }
  });
});

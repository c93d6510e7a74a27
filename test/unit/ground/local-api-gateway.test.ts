/**
 * The local status API as API Gateway's HTTP API stage behaves: every caller together held to
 * the stage's throttle (a token bucket of `burstLimit`, refilled at `rateLimit` a second),
 * answered 429 `{"message":"Too Many Requests"}` past it, on a clock the test moves; and any
 * correct SigV4 signature let in, such as curl's `--aws-sigv4`, which signs other headers than
 * the CLI's client. The one route reached, GET /jobs/<not an id>, is refused by the handler
 * without calling AWS.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../bin/client/api-client.js';
import { type LocalApi, startLocalApi } from '../../../localstack/runtime/local-api.js';
import { StageThrottle } from '../../../localstack/runtime/stage-throttle.js';

const REGION = 'us-east-1';
const NOWHERE = 'http://127.0.0.1:1';
const KEY = { accessKeyId: 'AKIDGATEWAY', secretAccessKey: 'gateway-secret' };
let now = 1_800_000_000_000;
let api: LocalApi;

beforeAll(async () => {
  const aws = { region: REGION, endpoint: NOWHERE, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };
  api = await startLocalApi({
    deps: {
      db: DynamoDBDocumentClient.from(new DynamoDBClient(aws)),
      s3: new S3Client({ ...aws, forcePathStyle: true }),
      tableName: 'state',
      intakeBucket: 'intake',
      intakePrefix: 'incoming/',
      resultsBucket: 'results',
      defaultLane: 'realtime',
      defaultCeilingMicros: 1_000_000,
      uploadUrlSeconds: 600,
      reportUrlSeconds: 600,
      maxDocumentBytes: 1024,
      sqs: new SQSClient(aws),
      laneQueueUrls: { realtime: `${NOWHERE}/rt`, batch: `${NOWHERE}/b` },
      finalizeQueueUrl: `${NOWHERE}/fin`,
      resultsPrefix: 'reports/',
    },
    region: REGION,
    credentials: { [KEY.accessKeyId]: KEY.secretAccessKey },
    throttle: { rateLimit: 2, burstLimit: 3 },
    now: () => now,
  });
});
afterAll(() => api?.close());

describe('StageThrottle', () => {
  it('lets a burst through, then the rate, and never more than the burst after a quiet spell', () => {
    let at = 0;
    const stage = new StageThrottle({ rateLimit: 2, burstLimit: 3 }, () => at);
    const takes = (n: number) => Array.from({ length: n }, () => stage.take());
    expect(takes(4)).toEqual([true, true, true, false]);
    at += 500;
    expect(takes(2)).toEqual([true, false]);
    at += 60_000;
    expect(takes(4)).toEqual([true, true, true, false]);
    expect(() => new StageThrottle({ rateLimit: 0, burstLimit: 3 })).toThrow(/rate above 0/);
  });
});

describe('the local API', () => {
  const client = () => new ApiClient({ url: api.url, region: REGION, credentials: KEY });

  it("answers 429 with API Gateway's body past the stage's burst, whoever calls, until the bucket refills", async () => {
    now += 60_000;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await client().request('GET', 'jobs/not-a-job')).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
    const throttled = await client().request('GET', 'jobs/not-a-job');
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({ message: 'Too Many Requests' });
    // Even an unsigned request spends the stage's tokens: throttling comes before authorization.
    now += 500;
    expect((await fetch(`${api.url}jobs/not-a-job`)).status).toBe(403);
    expect((await client().request('GET', 'jobs/not-a-job')).status).toBe(429);
    now += 500;
    expect((await client().request('GET', 'jobs/not-a-job')).status).toBe(400);
  });

  const curlSigns = (() => {
    try {
      return execFileSync('curl', ['--help', 'all'], { encoding: 'utf8' }).includes('--aws-sigv4');
    } catch {
      return false;
    }
  })();

  it.skipIf(!curlSigns)(
    "lets in curl's --aws-sigv4 signature, and refuses it with the wrong secret",
    async () => {
      now += 60_000;
      // curl in a process of its own, while this one's server answers it.
      const curl = async (secret: string) =>
        (
          await promisify(execFile)('curl', [
            '-s',
            '--max-time',
            '30',
            '--aws-sigv4',
            `aws:amz:${REGION}:execute-api`,
            '--user',
            `${KEY.accessKeyId}:${secret}`,
            `${api.url}jobs/not-a-job`,
          ])
        ).stdout;
      // Past the signature, to the handler: its refusal of the id.
      expect(JSON.parse(await curl(KEY.secretAccessKey))).toMatchObject({ error: 'BadRequestError' });
      expect(JSON.parse(await curl('wrong')).message).toMatch(/signature we calculated does not match/);
    },
  );
});

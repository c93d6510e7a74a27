/**
 * Every route of the status API draws on a budget per caller (lambdas/api/caller-limits.ts),
 * kept in the run's DynamoDB: a caller past its budget of a route gets 429 with Retry-After
 * before any of the route's work, while another caller is served; the approvals list has a
 * budget of its own, apart from GET /jobs; and a role's sessions share one budget whatever
 * they are named, while the sessions of a role that names them after the person each have
 * their own.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type CallerBudgets, CallerLimits } from '../../lambdas/api/caller-limits.js';
import { configureApi, handler, presigningS3Client } from '../../lambdas/api/handler.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { askApi, iamCaller } from '../helpers/api-event.js';
import { provisionTestStack } from '../helpers/local-aws.js';
import { ownerJobMaker } from '../helpers/owner-jobs.js';

const stack = await provisionTestStack('routelimit');
const db = DynamoDBDocumentClient.from(stack.clients.dynamodb);
const r = stack.resources;
const ANA = 'arn:aws:iam::000000000000:user/ana';
const BEN = 'arn:aws:iam::000000000000:user/ben';
const ROLE = 'arn:aws:iam::000000000000:role/Ops';
const NAMED = 'arn:aws:iam::000000000000:role/Reviewers';
const session = (role: string, name: string) =>
  `arn:aws:sts::000000000000:assumed-role/${role.split('/').at(-1)}/${name}`;

/** Two requests at once, then none for a minute: the third in a row is refused. */
const TIGHT = { burst: 2, perMinute: 1 };
const budgets: Partial<CallerBudgets> = {
  status: TIGHT,
  list: TIGHT,
  approvals: TIGHT,
  findings: TIGHT,
  'decide-redlines': TIGHT,
};
const aws = { endpoint: stack.endpoint, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS };
configureApi({
  db,
  s3: presigningS3Client({ ...aws, forcePathStyle: true }),
  sqs: new SQSClient(aws),
  tableName: r.tableName,
  intakeBucket: r.intakeBucket,
  intakePrefix: r.intakePrefix,
  resultsBucket: r.resultsBucket,
  resultsPrefix: r.resultsPrefix,
  laneQueueUrls: r.queueUrls,
  finalizeQueueUrl: r.queueUrls.finalize,
  defaultLane: 'realtime',
  defaultCeilingMicros: 1_000_000,
  uploadUrlSeconds: 900,
  reportUrlSeconds: 900,
  maxDocumentBytes: 1024 * 1024,
  administrators: [ROLE],
  sessionNamedRoles: [NAMED],
  callerLimits: new CallerLimits(db, r.tableName, budgets),
  groups: async () => ['legal-approvers'],
});
const jobId = await ownerJobMaker(new Jobs(db, r.tableName), 'rl')(ANA);

/** What the handler answers `caller` for `method path?query`. */
async function ask(caller: string, method: string, path: string, query = '', body?: string) {
  const r = await askApi(handler, { method, path, query, body, authorizer: iamCaller(caller) });
  return { status: r.status, retryAfter: r.headers['retry-after'], body: r.raw };
}

/** The statuses of `n` requests in a row. */
async function statuses(n: number, caller: string, method: string, path: string, query = '', body?: string) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await ask(caller, method, path, query, body)).status ?? 0);
  return out;
}

describe('per-caller budgets of every route', () => {
  const routes = [
    ['GET /jobs', 'GET', '/jobs', ''],
    ['GET /jobs/{id}', 'GET', `/jobs/${jobId}`, ''],
    ['GET /jobs/{id}/findings', 'GET', `/jobs/${jobId}/findings`, 'after='],
    ['POST /jobs/{id}/redlines', 'POST', `/jobs/${jobId}/redlines`, '', '{"decisions":[]}'],
    ['GET /jobs?awaiting=approval', 'GET', '/jobs', 'awaiting=approval'],
  ] as const;

  it.each(routes)(
    '%s: 429 with Retry-After past the burst, while another caller is served',
    async (_, method, path, query, body?) => {
      const served = await statuses(2, ANA, method, path, query, body);
      expect(served.every((s) => s !== 429)).toBe(true);
      const refused = await ask(ANA, method, path, query, body);
      expect(refused.status).toBe(429);
      // One a minute: the next is under a minute away.
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
      expect(JSON.parse(refused.body ?? '{}')).toMatchObject({ error: 'TooManyRequestsError' });
      expect((await ask(BEN, method, path, query, body)).status).not.toBe(429);
    },
  );

  it('keeps the approvals list apart from GET /jobs, and a route without a budget given at its default', async () => {
    const cy = 'arn:aws:iam::000000000000:user/cy';
    expect(await statuses(3, cy, 'GET', '/jobs')).toEqual([200, 200, 429]);
    expect(await statuses(2, cy, 'GET', '/jobs', 'awaiting=approval')).toEqual([200, 200]);
    // GET /jobs/{id}/report keeps DEFAULT_CALLER_BUDGETS' ten at once.
    expect((await statuses(3, cy, 'GET', `/jobs/${jobId}/report`)).includes(429)).toBe(false);
  });

  it("gives a role's sessions one budget, and each session of a role that names them after the person its own", async () => {
    expect(await statuses(2, session(ROLE, 'first'), 'GET', '/jobs')).toEqual([200, 200]);
    expect((await ask(session(ROLE, 'a-new-name'), 'GET', '/jobs')).status).toBe(429);
    expect(await statuses(3, session(NAMED, 'dee'), 'GET', '/jobs')).toEqual([200, 200, 429]);
    expect((await ask(session(NAMED, 'eve'), 'GET', '/jobs')).status).toBe(200);
  });
});

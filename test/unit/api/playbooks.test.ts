import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  isApiError,
  isNotAdministratorError,
  isPlaybookUnknownError,
  NotAdministratorError,
  PlaybookUnknownError,
} from '../../../lambdas/api/errors.js';
import { configureApi, handler } from '../../../lambdas/api/handler.js';
import { MAX_BODY_BYTES, MAX_PLAYBOOK_BODY_BYTES, maxBodyBytes } from '../../../lambdas/api/limits.js';
import { matchRoute } from '../../../lambdas/api/routes.js';
import { MAX_PLAYBOOK_SOURCE_BYTES } from '../../../lambdas/core/playbooks/index.js';
import { askApi } from '../../helpers/api-event.js';

const ADMIN = 'arn:aws:iam::123456789012:user/admin';
const REVIEWER = 'arn:aws:iam::123456789012:user/reviewer';
const ddb = mockClient(DynamoDBDocumentClient);

configureApi({
  db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  s3: new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'AKID', secretAccessKey: 's' } }),
  tableName: 'state',
  intakeBucket: 'intake',
  intakePrefix: 'incoming/',
  resultsBucket: 'results',
  defaultLane: 'realtime',
  defaultCeilingMicros: 5_000_000,
  uploadUrlSeconds: 600,
  maxDocumentBytes: 10 * 1024 * 1024,
  reportUrlSeconds: 300,
  administrators: [ADMIN],
  sqs: new SQSClient({ region: 'us-east-1' }),
  laneQueueUrls: { realtime: 'https://q/rt', batch: 'https://q/b' },
  finalizeQueueUrl: 'https://q/fin',
  resultsPrefix: 'reports/',
});

function call(method: 'GET' | 'POST', path: string, caller: string | undefined, body?: unknown) {
  return askApi(handler, {
    method,
    path,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(caller ? { authorizer: { iam: { userArn: caller, userId: 'AIDA1' } } } : {}),
  });
}

beforeEach(() => ddb.reset());

describe('the playbook routes', () => {
  it('match GET /playbooks, GET /playbooks/{name}[@version] and POST /playbooks', () => {
    expect(matchRoute('GET', '/playbooks')?.route.name).toBe('playbooks');
    expect(matchRoute('GET', '/playbooks/default%402')).toMatchObject({
      route: { name: 'playbook' },
      pathParameters: { id: 'default@2' },
    });
    expect(matchRoute('POST', '/playbooks')?.route.name).toBe('put-playbook');
  });

  it('read a put body as large as a playbook file written as a JSON string, and no more', () => {
    expect(maxBodyBytes('put-playbook')).toBe(MAX_PLAYBOOK_BODY_BYTES);
    expect(MAX_PLAYBOOK_BODY_BYTES).toBe(2 * MAX_PLAYBOOK_SOURCE_BYTES + MAX_BODY_BYTES);
    expect(maxBodyBytes('playbooks')).toBe(MAX_BODY_BYTES);
  });

  it('refuse a put by anyone but an administrator with 403, before reading the body or the table', async () => {
    for (const caller of [REVIEWER, undefined]) {
      const r = await call('POST', '/playbooks', caller, { source: 'name: x' });
      expect(r.status).toBe(403);
      expect(r.body.error).toBe('NotAdministratorError');
    }
    expect(ddb.calls()).toHaveLength(0);
  });

  it("refuse an administrator's file that is not a playbook with 400 and its lines, writing nothing", async () => {
    const r = await call('POST', '/playbooks', ADMIN, {
      source: 'name: x\ntitle: X\nparty: buyer\n',
      filename: 'x.yaml',
    });
    expect(r.status).toBe(400);
    expect(r.body.issues).toEqual([
      expect.stringMatching(/^line 3, column 8: party: Invalid option: expected one of "customer"/),
      'line 1, column 1: contractTypes: is required',
      'line 1, column 1: positions: is required',
    ]);
    expect(String(r.body.message)).toMatch(/^x\.yaml is not a valid playbook \(3 problems\)/);
    const unknownField = await call('POST', '/playbooks', ADMIN, { source: 'name: x', extra: 1 });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.message).toMatch(/^invalid playbook: Unrecognized key: "extra"/);
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answer unsigned reads with 404 and text that names no playbook with 400', async () => {
    expect((await call('GET', '/playbooks', undefined)).status).toBe(404);
    const bad = await call('GET', '/playbooks/Default', REVIEWER);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/'Default' does not name a playbook/);
    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('the playbook refusals', () => {
  it('carry their status and are told apart by their guards', () => {
    const forbidden = new NotAdministratorError('no');
    const unknown = new PlaybookUnknownError('none');
    expect([forbidden.statusCode, unknown.statusCode]).toEqual([403, 404]);
    expect([isNotAdministratorError(forbidden), isNotAdministratorError(unknown)]).toEqual([true, false]);
    expect([isPlaybookUnknownError(unknown), isPlaybookUnknownError(forbidden)]).toEqual([true, false]);
    expect(isApiError(unknown)).toBe(true);
  });
});

/**
 * Who may act on a job through the status API: another caller is answered as for a missing job
 * on every route, an administrator role's session is let in, the caller is signed into the upload
 * as its submitter (`mayActOn`, `submitterOf`), and a role session whose name the caller chose is
 * refused with 403 before any route runs (`sessionRefusal`).
 */
import { ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { mayActOn, sessionRefusal } from '../../../lambdas/api/access.js';
import {
  BadRequestError,
  isTooManyRequestsError,
  isUntrustedSessionError,
  TooManyRequestsError,
  UntrustedSessionError,
} from '../../../lambdas/api/errors.js';
import { submitterOf } from '../../../lambdas/core/intake/submitter.js';
import {
  ADMIN_ROLE,
  ADMIN_SESSION,
  ALICE,
  call,
  MALLORY,
  mockedApi,
  policyOf,
  running,
} from './handler-calls.js';

const { ddb, s3mock } = mockedApi();

describe('ownership', () => {
  it('answers another caller exactly as for a missing job, on every route', async () => {
    ddb.on(GetCommand).resolves({});
    const missing = await call('GET', '/jobs/j-99999999999999999999', undefined, MALLORY);
    for (const [method, suffix] of [
      ['GET', ''],
      ['POST', '/cancel'],
      ['GET', '/report'],
    ] as const) {
      ddb.reset();
      ddb.on(GetCommand).resolves({ Item: { ...running, status: 'completed', finalizedAt: 'f' } });
      const r = await call(method, `/jobs/${running.jobId}${suffix}`, undefined, MALLORY);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({
        ...missing.body,
        message: (missing.body.message as string).replace('j-99999999999999999999', running.jobId),
      });
      expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    }
  });

  it('hides a submission whose job belongs to someone else, and lets an administrator role session in', async () => {
    s3mock.on(ListObjectVersionsCommand).resolves({
      Versions: [{ Key: running.key, VersionId: 'v1', IsLatest: true }],
    });
    ddb.on(GetCommand).resolves({ Item: running });
    const hidden = await call('GET', '/jobs/s-00000000000000000001', undefined, MALLORY);
    expect(hidden.status).toBe(404);
    expect(hidden.body.message).toMatch(/no upload for submission/);
    expect((await call('GET', '/jobs/s-00000000000000000001', undefined, ADMIN_SESSION)).status).toBe(200);
    expect((await call('GET', `/jobs/${running.jobId}`, undefined, ADMIN_SESSION)).status).toBe(200);
  });

  it('signs the caller into the upload as its submitter', async () => {
    const r = await call('POST', '/jobs', JSON.stringify({ filename: 'msa.pdf' }), MALLORY);
    const upload = r.body.upload as { fields: Record<string, string> };
    expect(upload.fields['x-amz-meta-submitted-by']).toBe(MALLORY);
    expect(policyOf(upload.fields).conditions).toContainEqual({ 'x-amz-meta-submitted-by': MALLORY });
  });
});

describe('mayActOn', () => {
  const job = { owner: ALICE };
  it('admits the owner and administrators, by ARN or by the principal id S3 events give', () => {
    expect(mayActOn(job, { arn: ALICE }, [])).toBe(true);
    expect(mayActOn(job, { arn: MALLORY }, [])).toBe(false);
    expect(mayActOn(job, { arn: MALLORY }, [MALLORY])).toBe(true);
    // A role named as administrator covers its sessions, whatever the role's path.
    expect(mayActOn(job, { arn: ADMIN_SESSION }, [ADMIN_ROLE])).toBe(true);
    expect(mayActOn(job, { arn: 'arn:aws:sts::999999999999:assumed-role/Auditor/x' }, [ADMIN_ROLE])).toBe(
      false,
    );
    expect(mayActOn(job, { arn: 'arn:aws:sts::123456789012:assumed-role/Other/x' }, [ADMIN_ROLE])).toBe(
      false,
    );
    // An S3 upload records `AWS:` + the principal's unique id.
    const uploaded = { owner: 'AWS:AROAEXAMPLE:alice-session' };
    expect(
      mayActOn(
        uploaded,
        { arn: 'arn:aws:sts::1:assumed-role/R/alice-session', userId: 'AROAEXAMPLE:alice-session' },
        [],
      ),
    ).toBe(true);
    expect(
      mayActOn(uploaded, { arn: 'arn:aws:sts::1:assumed-role/R/bob', userId: 'AROAEXAMPLE:bob' }, []),
    ).toBe(false);
  });

  it('keeps a job with no recorded owner, and every job from an unknown caller, to administrators', () => {
    expect(mayActOn({}, { arn: ALICE }, [])).toBe(false);
    expect(mayActOn({}, { arn: ADMIN_SESSION }, [ADMIN_ROLE])).toBe(true);
    expect(mayActOn(job, undefined, [ADMIN_ROLE])).toBe(false);
  });
});

describe('sessionRefusal', () => {
  const none = { sessionNamedRoles: [], administrators: [] };
  it('refuses a role session whose name the caller chose, naming the role', () => {
    expect(sessionRefusal({ arn: 'arn:aws:sts::123456789012:assumed-role/Ops/alice' }, none)).toBe(
      'arn:aws:iam::123456789012:role/Ops',
    );
  });

  it('admits IAM users, people of the identity pool, named roles and administrator roles', () => {
    expect(sessionRefusal({ arn: ALICE }, none)).toBeUndefined();
    expect(
      sessionRefusal(
        {
          arn: 'arn:aws:sts::123456789012:assumed-role/Reviewer/CognitoIdentityCredentials',
          cognitoIdentityId: 'us-east-1:ab',
        },
        none,
      ),
    ).toBeUndefined();
    const sso = 'arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/AWSReservedSSO_Reviewers_0a1b';
    const session = { arn: 'arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Reviewers_0a1b/ana' };
    expect(sessionRefusal(session, { sessionNamedRoles: [sso], administrators: [] })).toBeUndefined();
    // The same role name in another account is another role.
    expect(
      sessionRefusal(
        { arn: 'arn:aws:sts::999999999999:assumed-role/AWSReservedSSO_Reviewers_0a1b/ana' },
        { sessionNamedRoles: [sso], administrators: [] },
      ),
    ).toBe('arn:aws:iam::999999999999:role/AWSReservedSSO_Reviewers_0a1b');
    expect(
      sessionRefusal({ arn: ADMIN_SESSION }, { sessionNamedRoles: [], administrators: [ADMIN_ROLE] }),
    ).toBe(undefined);
  });

  it('is answered 403 with what to do, before any route runs', async () => {
    const r = await call(
      'GET',
      '/jobs/j-0123456789abcdef0123',
      undefined,
      'arn:aws:sts::123456789012:assumed-role/Ops/alice',
    );
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('UntrustedSessionError');
    expect(r.body.message).toMatch(
      /^sessions of arn:aws:iam::123456789012:role\/Ops are named by whoever assumes the role/,
    );
    expect(ddb.calls()).toHaveLength(0);
    // An administrator's session goes on to the route.
    ddb.on(GetCommand).resolves({ Item: running });
    expect((await call('GET', `/jobs/${running.jobId}`, undefined, ADMIN_SESSION)).status).toBe(200);
  });

  it('has guards for its errors', () => {
    expect(isUntrustedSessionError(new UntrustedSessionError('arn:aws:iam::1:role/R'))).toBe(true);
    expect(isUntrustedSessionError(new BadRequestError('x'))).toBe(false);
    const limited = new TooManyRequestsError('quote', 7, { burst: 10, perMinute: 12 });
    expect(isTooManyRequestsError(limited)).toBe(true);
    expect([limited.statusCode, limited.retryAfterSeconds]).toEqual([429, 7]);
    expect(isTooManyRequestsError(new BadRequestError('x'))).toBe(false);
  });
});

describe('submitterOf', () => {
  const meta = { 'submitted-by': ALICE };
  it('believes the signed submitter only on an upload the API role made', () => {
    expect(submitterOf('AWS:AROAAPIROLE:clause-review-api', meta, 'AROAAPIROLE')).toBe(ALICE);
    expect(submitterOf('AWS:AIDAMALLORY', meta, 'AROAAPIROLE')).toBe('AWS:AIDAMALLORY');
    expect(submitterOf('AWS:AROAAPIROLEX:s', meta, 'AROAAPIROLE')).toBe('AWS:AROAAPIROLEX:s');
    expect(submitterOf('AWS:AROAAPIROLE:clause-review-api', meta, undefined)).toBe(
      'AWS:AROAAPIROLE:clause-review-api',
    );
    expect(submitterOf('AWS:AIDAMALLORY', {}, 'AROAAPIROLE')).toBe('AWS:AIDAMALLORY');
    // An event without a principal (an emulator's) takes the signed header as given.
    expect(submitterOf(undefined, meta, undefined)).toBe(ALICE);
    expect(submitterOf(undefined, {}, undefined)).toBeUndefined();
  });
});

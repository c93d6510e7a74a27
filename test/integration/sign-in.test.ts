/**
 * Sign-in for people on the local ground: the user pool and identity pool `local up`
 * provisions, people created through the real Cognito SDK clients and signed in by SRP as the
 * app signs them in (a new password, then an authenticator set up, as the pool requires TOTP
 * MFA), temporary credentials from the identity pool, and the status API called with them,
 * signed with SigV4 as the CLI signs. Every signed-in person signs with a session of the same
 * role, yet each sees only their own jobs; a member of the administrators group sees everyone's.
 * The decision trail names a person by their `sub` and a verified email only, whatever they or
 * an administrator later do to the address.
 *
 * Cognito identity pools that hand each person their own key exist only in the project's moto
 * launcher (moto_cognito.py), so this file runs on the worker's moto server on any ground.
 */
import {
  type CognitoIdentityClient,
  GetCredentialsForIdentityCommand,
  GetIdCommand,
} from '@aws-sdk/client-cognito-identity';
import {
  AdminGetUserCommand,
  AdminUpdateUserAttributesCommand,
  type CognitoIdentityProviderClient,
  UpdateUserAttributesCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, isApiRequestError, send, uploadDocument } from '../../bin/client/api-client.js';
import type { JobView } from '../../lambdas/api/jobs-api.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { cognitoCallerLookup } from '../../localstack/runtime/cognito-callers.js';
import type { LocalApi } from '../../localstack/runtime/local-api.js';
import {
  isSignInProvisionError,
  LOCAL_ADMINISTRATORS_GROUP,
  type LocalSignIn,
  provisionSignIn,
} from '../../localstack/sign-in.js';
import { fixture, SMALL } from '../helpers/pipeline.js';
import {
  type Person,
  providerOf,
  type SignInStack,
  signedInPerson,
  startSignInStack,
} from '../helpers/signed-in.js';

let stack: SignInStack;
let localApi: LocalApi;
let signIn: LocalSignIn;
let idp: CognitoIdentityProviderClient;
let identity: CognitoIdentityClient;

beforeAll(async () => {
  stack = await startSignInStack('signin');
  ({ localApi, signIn, idp, identity } = stack);
}, 120_000);

afterAll(() => stack?.stop());

const provider = () => providerOf(signIn);
const person = (email: string, groups: string[] = []): Promise<Person> =>
  signedInPerson(stack, email, groups);

async function statusOf(p: Person, id: string): Promise<number> {
  try {
    await p.api.status(id);
    return 200;
  } catch (error) {
    if (isApiRequestError(error)) return error.status;
    throw error;
  }
}

async function jobOf(p: Person): Promise<JobView> {
  const submission = await p.api.submit({ filename: SMALL, lane: 'realtime', ceilingUsd: 1 });
  expect(submission.upload.fields['x-amz-meta-submitted-by']).toBe(`cognito-identity:${p.identityId}`);
  await uploadDocument(submission, fixture(SMALL));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const view = await p.api.status(submission.submissionId);
    if (view.status !== 'queued') return view;
    if (Date.now() > deadline) throw new Error(`intake never took ${submission.submissionId}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('signing in', () => {
  it('gives each person one identity of their own and keys of their own, for the same reviewer role', async () => {
    const anna = await person('anna@example.com');
    const ben = await person('ben@example.com');
    expect(anna.identityId).toMatch(/^us-east-1:[0-9a-f-]{36}$/);
    expect(ben.identityId).not.toBe(anna.identityId);
    expect(ben.credentials.accessKeyId).not.toBe(anna.credentials.accessKeyId);
    // Signing in again is the same person: the same identity.
    const again = await identity.send(
      new GetIdCommand({ IdentityPoolId: signIn.identityPoolId, Logins: { [provider()]: anna.idToken } }),
    );
    expect(again.IdentityId).toBe(anna.identityId);
  });

  it('refuses guests, foreign tokens and another person’s identity', async () => {
    await expect(
      identity.send(new GetIdCommand({ IdentityPoolId: signIn.identityPoolId })),
    ).rejects.toMatchObject({
      name: 'NotAuthorizedException',
    });
    await expect(
      identity.send(
        new GetIdCommand({ IdentityPoolId: signIn.identityPoolId, Logins: { [provider()]: 'a.b.c' } }),
      ),
    ).rejects.toMatchObject({ name: 'NotAuthorizedException' });
    const clara = await person('clara@example.com');
    const dan = await person('dan@example.com');
    await expect(
      identity.send(
        new GetCredentialsForIdentityCommand({
          IdentityId: clara.identityId,
          Logins: { [provider()]: dan.idToken },
        }),
      ),
    ).rejects.toMatchObject({ name: 'NotAuthorizedException' });
  });
});

describe('two people signed in', () => {
  it('see only their own jobs; a member of the administrators group sees both', async () => {
    const erin = await person('erin@example.com');
    const femi = await person('femi@example.com');
    const gail = await person('gail@example.com', [LOCAL_ADMINISTRATORS_GROUP]);
    const erinsJob = await jobOf(erin);
    const femisJob = await jobOf(femi);
    expect(erinsJob.jobId).not.toBe(femisJob.jobId);
    // Erin and Femi sign with sessions of the one reviewer role, Gail of the administrators role.
    const lookup = cognitoCallerLookup(stack.endpoint);
    const session = (roleArn: string) =>
      `arn:aws:sts::123456789012:assumed-role/${roleArn.split('/').at(-1)}/CognitoIdentityCredentials`;
    for (const p of [erin, femi]) {
      expect((await lookup(p.credentials.accessKeyId))?.arn).toBe(session(signIn.reviewerRoleArn));
    }
    expect(await lookup(gail.credentials.accessKeyId)).toMatchObject({
      arn: session(signIn.administratorRoleArn),
      identityId: gail.identityId,
      identityPoolId: signIn.identityPoolId,
    });
    expect(await lookup('ASIANOBODYHANDEDOUT1')).toBeUndefined();

    expect(await statusOf(erin, erinsJob.jobId)).toBe(200);
    expect(await statusOf(femi, femisJob.jobId)).toBe(200);
    // Though both sign with a session of the same role, neither sees the other's job.
    expect(await statusOf(erin, femisJob.jobId)).toBe(404);
    expect(await statusOf(femi, erinsJob.jobId)).toBe(404);
    expect(await statusOf(femi, erinsJob.submissionId ?? '')).toBe(404);
    // The administrators group's role is an administrator of the API.
    expect(await statusOf(gail, erinsJob.jobId)).toBe(200);
    expect(await statusOf(gail, femisJob.jobId)).toBe(200);
    // GET /jobs lists each person's own job, under their identity rather than the shared role.
    const listed = async (p: typeof erin) => (await p.api.jobs()).jobs.map((j) => j.jobId);
    expect(await listed(erin)).toEqual([erinsJob.jobId]);
    expect(await listed(femi)).toEqual([femisJob.jobId]);
  }, 120_000);

  it('are refused with a key whose session token is missing or wrong', async () => {
    const hana = await person('hana@example.com');
    const { sessionToken: _, ...withoutToken } = hana.credentials;
    const url = new URL('jobs/j-00000000000000000000', localApi.url);
    const bare = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: withoutToken });
    const refused = await bare.status('j-00000000000000000000').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiRequestError(refused) && refused.status).toBe(403);
    const forged = new ApiClient({
      url: localApi.url,
      region: LOCAL_REGION,
      credentials: { ...hana.credentials, sessionToken: 'forged' },
    });
    const alsoRefused = await forged.status('j-00000000000000000000').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiRequestError(alsoRefused) && alsoRefused.status).toBe(403);
    // An unsigned request never reaches the handler either.
    expect((await send(url, 'GET', {})).status).toBe(403);
  });
});

/**
 * A consulting agreement on which the stand-in's default (learned) analysts rate clauses high or
 * critical (an irrevocable assignment of inventions, a perpetual licence of prior ones).
 */
const HELD = 'KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT.txt';

/** A job of `p`'s that a `high` gate holds for review, and its gated findings. */
async function heldJobOf(p: Person): Promise<{ jobId: string; gated: string[] }> {
  const submission = await p.api.submit({
    filename: HELD,
    lane: 'realtime',
    ceilingUsd: 5,
    gate: 'high',
    analysts: ['liability-counsel', 'ip-counsel', 'term-lifecycle', 'risk-transfer'],
  });
  await uploadDocument(submission, fixture(HELD));
  for (const deadline = Date.now() + 180_000; ; ) {
    const view = await p.api.status(submission.submissionId);
    if (view.status === 'awaiting_review') {
      const listed = await p.api.findings(view.jobId);
      return { jobId: view.jobId, gated: listed.findings.filter((f) => f.gated).map((f) => f.id) };
    }
    if (view.finished || Date.now() > deadline)
      throw new Error(`job never waited for review: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('the decision trail', () => {
  it('names the decider by their sub and a verified email only, and does not follow a changed address', async () => {
    const ivy = await person('ivy@example.com');
    const sub = (
      await idp.send(new AdminGetUserCommand({ UserPoolId: signIn.userPoolId, Username: ivy.email }))
    ).UserAttributes?.find((a) => a.Name === 'sub')?.Value;
    expect(sub).toMatch(/^[0-9a-f-]{36}$/);
    const { jobId, gated } = await heldJobOf(ivy);
    expect(gated.length).toBeGreaterThan(1);
    const first = gated[0] ?? '';
    await ivy.api.decide(jobId, { findings: [first], verdict: 'approve', note: 'as ivy' });

    // Ivy cannot set her own address to the general counsel's: the app client may not write it.
    await expect(
      idp.send(
        new UpdateUserAttributesCommand({
          AccessToken: ivy.accessToken,
          UserAttributes: [{ Name: 'email', Value: 'counsel@example.com' }],
        }),
      ),
    ).rejects.toMatchObject({
      name: 'NotAuthorizedException',
      message: 'A client attempted to write unauthorized attribute',
    });
    // An administrator's change waits for verification: the pool keeps the verified address.
    await idp.send(
      new AdminUpdateUserAttributesCommand({
        UserPoolId: signIn.userPoolId,
        Username: ivy.email,
        UserAttributes: [{ Name: 'email', Value: 'counsel@example.com' }],
      }),
    );
    await ivy.api.decide(jobId, { findings: [first], verdict: 'reject', note: 'after the change' });
    // An address the pool no longer vouches for names nobody: the sub alone decides.
    await idp.send(
      new AdminUpdateUserAttributesCommand({
        UserPoolId: signIn.userPoolId,
        Username: ivy.email,
        UserAttributes: [{ Name: 'email_verified', Value: 'false' }],
      }),
    );
    await ivy.api.decide(jobId, { allUndecided: true, verdict: 'approve' });

    const view = await ivy.api.findings(jobId);
    expect(view.findings.find((f) => f.id === first)?.decision).toMatchObject({
      bySub: sub,
      verdict: 'reject',
    });
    for (let i = 0; ; i++) {
      const status = await ivy.api.status(jobId);
      if (status.reportReady) break;
      if (i > 600) throw new Error(`the report was never written: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const links = await ivy.api.report(jobId);
    const report = (await (await fetch(links.json.url)).json()) as Report;
    const trail = report.review?.trail ?? [];
    expect(trail.map((d) => [d.note ?? '', d.bySub, d.byName])).toEqual([
      ['as ivy', sub, 'ivy@example.com'],
      ['after the change', sub, 'ivy@example.com'],
      ...trail.slice(2).map(() => ['', sub, undefined]),
    ]);
    expect(trail.length).toBeGreaterThan(2);
    const html = await (await fetch(links.html.url)).text();
    expect(html).toContain(`ivy@example.com (<code>${sub}</code>)`);
    expect(html).not.toContain('counsel@example.com');
  }, 240_000);
});

describe('provisioning sign-in', () => {
  it('names the emulator and the reason when it cannot be done, so local up can go on without it', async () => {
    const refused = await provisionSignIn('http://127.0.0.1:1', 'nowhere').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isSignInProvisionError(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/could not provision sign-in on http:\/\/127\.0\.0\.1:1: /);
    expect((refused as Error).cause).toBeDefined();
  });
});

/**
 * The status API's labels for deciders (lambdas/api/people.ts) against the emulator's user
 * pool through the real SDK client: the `sub` of a caller's user pool sign-in becomes the
 * person's email when the pool marks it verified (or their user name where they sign in by
 * one); an unverified address, a caller of another pool, an unknown `sub` and a pool that cannot
 * be reached give no label, so the trail names the `sub` alone. A person's groups are kept a few
 * seconds; a pool that cannot be read refuses the request for now, never answering "no groups".
 */
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminRemoveUserFromGroupCommand,
  AdminUpdateUserAttributesCommand,
  CognitoIdentityProviderClient,
  CreateGroupCommand,
  CreateUserPoolCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../lambdas/api/access.js';
import { isGroupLookupError } from '../../lambdas/api/errors.js';
import { userPoolGroups, userPoolLabels } from '../../lambdas/api/people.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { motoEndpoint, uniquePrefix } from '../helpers/local-aws.js';

// LocalStack's community build serves no Cognito: on that ground the pool comes from the run's
// moto server beside it (motoEndpoint).
const endpoint = motoEndpoint();
const idp = new CognitoIdentityProviderClient({
  endpoint,
  region: LOCAL_REGION,
  credentials: EMULATOR_CREDENTIALS,
});
afterAll(() => idp.destroy());

async function pool(emailNames: boolean): Promise<string> {
  const r = await idp.send(
    new CreateUserPoolCommand({
      PoolName: uniquePrefix('people'),
      ...(emailNames ? { UsernameAttributes: ['email'] } : {}),
    }),
  );
  return r.UserPool?.Id ?? '';
}

/** Creates a person (their email verified unless `verified` is false) and answers their `sub`. */
async function person(
  userPoolId: string,
  username: string,
  email?: string,
  verified = true,
): Promise<string> {
  await idp.send(
    new AdminCreateUserCommand({
      UserPoolId: userPoolId,
      Username: username,
      MessageAction: 'SUPPRESS',
      ...(email
        ? {
            UserAttributes: [
              { Name: 'email', Value: email },
              { Name: 'email_verified', Value: String(verified) },
            ],
          }
        : {}),
    }),
  );
  const user = await idp.send(new AdminGetUserCommand({ UserPoolId: userPoolId, Username: username }));
  return user.UserAttributes?.find((a) => a.Name === 'sub')?.Value ?? '';
}

const caller = (userPoolId: string, sub: string): Principal => ({
  arn: 'arn:aws:sts::123456789012:assumed-role/Reviewer/CognitoIdentityCredentials',
  cognitoIdentityId: 'us-east-1:11111111-1111-1111-1111-111111111111',
  userPoolSignIn: { userPoolId, sub },
});

describe("the status API's labels for deciders", () => {
  it('names a person by the verified email their user pool holds, else by user name, from the sub they signed in with', async () => {
    const people = await pool(true);
    const ada = await person(people, 'ada@example.com', 'ada@example.com');
    const names = await pool(false);
    const bob = await person(names, 'bob');
    expect(ada).toMatch(/^[0-9a-f-]{36}$/);
    expect(await userPoolLabels(idp, people)(caller(people, ada))).toBe('ada@example.com');
    expect(await userPoolLabels(idp, names)(caller(names, bob))).toBe('bob');
  });

  it('gives no label for an unverified email, nor once an administrator changes a verified one', async () => {
    const people = await pool(true);
    const labels = userPoolLabels(idp, people);
    // A pool whose sign-in name is the email names nobody by the user name: it is the sub again.
    const cy = await person(people, 'cy@example.com', 'cy@example.com', false);
    expect(await labels(caller(people, cy))).toBeUndefined();
    const dee = await person(people, 'dee@example.com', 'dee@example.com');
    expect(await labels(caller(people, dee))).toBe('dee@example.com');
    // Without keepOriginal, Cognito takes the new address at once and marks it unverified.
    await idp.send(
      new AdminUpdateUserAttributesCommand({
        UserPoolId: people,
        Username: 'dee@example.com',
        UserAttributes: [{ Name: 'email', Value: 'counsel@example.com' }],
      }),
    );
    expect(await labels(caller(people, dee))).toBeUndefined();
    // An administrator who verifies it in the same request names the person by it.
    await idp.send(
      new AdminUpdateUserAttributesCommand({
        UserPoolId: people,
        Username: 'counsel@example.com',
        UserAttributes: [
          { Name: 'email', Value: 'dee.new@example.com' },
          { Name: 'email_verified', Value: 'true' },
        ],
      }),
    );
    expect(await labels(caller(people, dee))).toBe('dee.new@example.com');
  });

  it('gives no label for another pool, an unknown sub, a caller without a sign-in, or a pool it cannot read', async () => {
    const people = await pool(true);
    const ada = await person(people, 'ada@example.com', 'ada@example.com');
    const labels = userPoolLabels(idp, people);
    expect(await labels(caller('us-east-1_Other1', ada))).toBeUndefined();
    expect(await labels(caller(people, '00000000-0000-4000-8000-000000000000'))).toBeUndefined();
    expect(await labels({ arn: 'arn:aws:iam::123456789012:user/alice' })).toBeUndefined();
    const logged: string[] = [];
    const missing = userPoolLabels(idp, 'us-east-1_Gone99', (m) => logged.push(m));
    expect(await missing(caller('us-east-1_Gone99', ada))).toBeUndefined();
    expect(logged).toEqual([`could not look up user ${ada} in us-east-1_Gone99`]);
  });
});

describe("the status API's groups of a signed-in person", () => {
  async function addTo(userPoolId: string, username: string, groups: readonly string[]): Promise<void> {
    for (const group of groups) {
      await idp
        .send(new CreateGroupCommand({ UserPoolId: userPoolId, GroupName: group }))
        .catch((e: unknown) => {
          if ((e as Error).name !== 'GroupExistsException') throw e;
        });
      await idp.send(
        new AdminAddUserToGroupCommand({ UserPoolId: userPoolId, Username: username, GroupName: group }),
      );
    }
  }

  it('reads every group of the person whose sub signed the request, kept a few seconds per person', async () => {
    const people = await pool(true);
    const lee = await person(people, 'lee@example.com', 'lee@example.com');
    let now = 1_000_000;
    const groups = userPoolGroups(idp, people, { keepMs: 5000, now: () => now });
    expect(await groups(caller(people, lee))).toEqual([]);
    await addTo(people, 'lee@example.com', ['legal-approvers', 'commercial-approvers']);
    // Within the few seconds a person's groups are kept, the pool is not asked again.
    now += 4999;
    expect(await groups(caller(people, lee))).toEqual([]);
    now += 1;
    expect([...(await groups(caller(people, lee)))].sort()).toEqual([
      'commercial-approvers',
      'legal-approvers',
    ]);
    now += 5000;
    // A removal counts once the person's groups are asked again.
    await idp.send(
      new AdminRemoveUserFromGroupCommand({
        UserPoolId: people,
        Username: 'lee@example.com',
        GroupName: 'legal-approvers',
      }),
    );
    expect(await groups(caller(people, lee))).toEqual(['commercial-approvers']);
    // More groups than one page of AdminListGroupsForUser holds (60).
    const many = Array.from({ length: 65 }, (_, i) => `g-${String(i).padStart(2, '0')}`);
    await addTo(people, 'lee@example.com', many);
    now += 5000;
    expect(await groups(caller(people, lee))).toHaveLength(66);
  });

  it('gives no group for another pool, an unknown sub or a caller without a sign-in', async () => {
    const people = await pool(true);
    const mo = await person(people, 'mo@example.com', 'mo@example.com');
    await addTo(people, 'mo@example.com', ['legal-approvers']);
    const groups = userPoolGroups(idp, people);
    expect(await groups(caller('us-east-1_Other1', mo))).toEqual([]);
    expect(await groups(caller(people, '00000000-0000-4000-8000-000000000000'))).toEqual([]);
    expect(await groups({ arn: 'arn:aws:iam::123456789012:user/alice' })).toEqual([]);
  });

  it('refuses for now, never answers "no groups", when it cannot read the pool, and keeps nothing of it', async () => {
    const people = await pool(true);
    const mo = await person(people, 'mo@example.com', 'mo@example.com');
    const logged: string[] = [];
    const gone = userPoolGroups(idp, 'us-east-1_Gone99', { log: (m) => logged.push(m) });
    const refusal = await gone(caller('us-east-1_Gone99', mo)).catch((e: unknown) => e);
    expect(isGroupLookupError(refusal)).toBe(true);
    expect(refusal).toMatchObject({ statusCode: 503, retryAfterSeconds: 2 });
    expect(logged).toEqual([`could not read the groups of user ${mo} in us-east-1_Gone99`]);
    // Asked again, it asks the pool again rather than keeping the failure.
    await expect(gone(caller('us-east-1_Gone99', mo))).rejects.toThrow(/did not answer/);
    expect(logged).toHaveLength(2);
  });
});

/**
 * Sign-in for people, read back from the synthesized ClauseReviewStack: the Cognito user pool
 * and its client (TOTP MFA, SRP only, revocable tokens), the administrators and approver groups,
 * the identity pool and the roles it hands out (allowed only execute-api:Invoke on the status
 * API), the administrators role and the user pool known to the API, and the outputs the app and
 * the CLI read. The app's hosting and its files: reviewer-app-hosting.test.ts.
 */
import { rmSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClauseReviewStack } from '../../lib/clause-review-stack.js';
import { ADMINISTRATORS_GROUP, ReviewerSignIn } from '../../lib/reviewer-sign-in.js';
import { STACK_OUTPUTS } from '../../lib/stack-outputs.js';
import { idOf, only, type Resource, reviewerStack, statementsOfRole } from './reviewer-access-stack.js';

let stack: ClauseReviewStack;
let resources: Record<string, Resource>;
let outputs: Record<string, { Value: unknown }>;

beforeAll(() => {
  ({ stack, resources, outputs } = reviewerStack());
});

describe('sign-in for people', () => {
  it('has a user pool only administrators add people to, with a strong password policy and TOTP MFA required', () => {
    const pool = only('AWS::Cognito::UserPool').Properties;
    expect(pool.AdminCreateUserConfig).toMatchObject({ AllowAdminCreateUserOnly: true });
    expect(pool.MfaConfiguration).toBe('ON');
    expect(pool.EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA']);
    expect(pool.Policies).toMatchObject({
      PasswordPolicy: {
        MinimumLength: 12,
        RequireLowercase: true,
        RequireUppercase: true,
        RequireNumbers: true,
        RequireSymbols: true,
      },
    });
    expect(pool.UserPoolTier).toBe('PLUS');
    const client = only('AWS::Cognito::UserPoolClient').Properties;
    expect(client.GenerateSecret).toBe(false);
    expect(client.PreventUserExistenceErrors).toBe('ENABLED');
  });

  it('signs people in by SRP only, with revocable refresh tokens, and lets no client write their email', () => {
    const client = only('AWS::Cognito::UserPoolClient').Properties;
    expect([...(client.ExplicitAuthFlows as string[])].sort()).toEqual([
      'ALLOW_REFRESH_TOKEN_AUTH',
      'ALLOW_USER_SRP_AUTH',
    ]);
    expect(client.EnableTokenRevocation).toBe(true);
    const writable = client.WriteAttributes as string[];
    // The list is what restricts: a client without one may write every attribute.
    expect(writable.length).toBeGreaterThan(0);
    expect(writable).not.toContain('email');
    expect(writable).not.toContain('email_verified');
    const pool = only('AWS::Cognito::UserPool').Properties;
    // A changed email keeps the verified one until the new one is verified.
    expect(pool.UserAttributeUpdateSettings).toEqual({
      AttributesRequireVerificationBeforeUpdate: ['email'],
    });
    expect(pool.AutoVerifiedAttributes).toEqual(['email']);
  });

  it('has an administrators group mapped to the administrators role, and the shipped playbooks’ approver groups with no role', () => {
    const groups = Object.values(resources)
      .filter((r) => r.Type === 'AWS::Cognito::UserPoolGroup')
      .map((r) => r.Properties);
    const admins = groups.filter((g) => g.GroupName === ADMINISTRATORS_GROUP);
    expect(admins).toHaveLength(1);
    expect(admins[0]?.RoleArn).toEqual({ 'Fn::GetAtt': [idOf(stack.signIn.administratorRole), 'Arn'] });
    // The groups default.yaml and nda.yaml name as approvers: membership decides escalations, and
    // a member still signs with the reviewer role (no role, so the token mapping is unchanged).
    const approvers = groups.filter((g) => g.GroupName !== ADMINISTRATORS_GROUP);
    expect(approvers.map((g) => g.GroupName).sort()).toEqual(['commercial-approvers', 'legal-approvers']);
    expect(stack.signIn.approverGroups).toEqual(['commercial-approvers', 'legal-approvers']);
    for (const g of approvers) {
      expect(g.RoleArn).toBeUndefined();
      expect(g.UserPoolId).toEqual({ Ref: idOf(stack.signIn.userPool) });
    }
  });

  it('creates the approver groups a stack names instead, and refuses a name Cognito would', () => {
    const other = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const scope = new Stack(other, 'Groups');
    const signIn = new ReviewerSignIn(scope, 'SignIn', {
      approverGroups: ['board', 'board', ADMINISTRATORS_GROUP],
    });
    expect(signIn.approverGroups).toEqual(['board']);
    signIn.allowInvoke(new apigw.HttpApi(scope, 'Api'));
    const names = Template.fromStack(scope).findResources('AWS::Cognito::UserPoolGroup');
    expect(
      Object.values(names)
        .map((r) => (r as Resource).Properties.GroupName)
        .sort(),
    ).toEqual([ADMINISTRATORS_GROUP, 'board']);
    expect(
      () => new ReviewerSignIn(new Stack(other, 'Bad'), 'SignIn', { approverGroups: ['two words'] }),
    ).toThrow("ReviewerSignIn approverGroups must be Cognito group names; got 'two words'");
    rmSync(other.outdir, { recursive: true, force: true });
  });

  it('has an identity pool for the user pool only, with no guest identities, mapping roles by token', () => {
    const identities = only('AWS::Cognito::IdentityPool').Properties;
    expect(identities.AllowUnauthenticatedIdentities).toBe(false);
    expect(identities.AllowClassicFlow).toBe(false);
    expect(identities.CognitoIdentityProviders).toEqual([
      expect.objectContaining({
        ClientId: { Ref: idOf(stack.signIn.client) },
        ServerSideTokenCheck: true,
      }),
    ]);
    const attachment = only('AWS::Cognito::IdentityPoolRoleAttachment').Properties;
    expect(attachment.Roles).toEqual({
      authenticated: { 'Fn::GetAtt': [idOf(stack.signIn.reviewerRole), 'Arn'] },
    });
    const mappings = Object.values(attachment.RoleMappings as Record<string, Record<string, unknown>>);
    expect(mappings).toEqual([
      expect.objectContaining({ Type: 'Token', AmbiguousRoleResolution: 'AuthenticatedRole' }),
    ]);
  });

  it("lets only the identity pool's authenticated identities assume either role", () => {
    const poolRef = { Ref: idOf(stack.signIn.identityPool) };
    for (const role of [stack.signIn.reviewerRole, stack.signIn.administratorRole]) {
      const trust = resources[idOf(role)]?.Properties.AssumeRolePolicyDocument as { Statement: unknown[] };
      expect(trust.Statement).toEqual([
        {
          Effect: 'Allow',
          Principal: { Federated: 'cognito-identity.amazonaws.com' },
          Action: 'sts:AssumeRoleWithWebIdentity',
          Condition: {
            StringEquals: { 'cognito-identity.amazonaws.com:aud': poolRef },
            'ForAnyValue:StringLike': { 'cognito-identity.amazonaws.com:amr': 'authenticated' },
          },
        },
      ]);
    }
  });

  it('allows both roles execute-api:Invoke on the status API and nothing else', () => {
    const apiId = idOf(stack.statusApi.httpApi);
    for (const role of [stack.signIn.reviewerRole, stack.signIn.administratorRole]) {
      const statements = statementsOfRole(idOf(role));
      expect(statements).toHaveLength(1);
      const [statement] = statements;
      expect(statement?.Effect).toBe('Allow');
      expect(statement?.Action).toBe('execute-api:Invoke');
      expect(JSON.stringify(statement?.Resource)).toContain(`{"Ref":"${apiId}"}`);
      expect(JSON.stringify(statement?.Resource)).toMatch(/"\/\*\/\*\/\*"\]\]\}$/);
      expect(statement?.Condition).toBeUndefined();
    }
  });

  it("names the administrators role, beside the stack's own administrators, to the status API", () => {
    const fn = resources[idOf(stack.statusApi.handler)]?.Properties as {
      Environment: { Variables: Record<string, unknown> };
    };
    const admins = JSON.stringify(fn.Environment.Variables.ADMIN_PRINCIPALS);
    expect(admins).toContain('arn:aws:iam::123456789012:role/Ops');
    expect(admins).toContain(idOf(stack.signIn.administratorRole));
    expect(admins).not.toContain(idOf(stack.signIn.reviewerRole));
  });

  it('lets the status API look people up in its own user pool (ListUsers and their groups only), to name deciders and let approvers decide', () => {
    const fn = resources[idOf(stack.statusApi.handler)]?.Properties as {
      Environment: { Variables: Record<string, unknown> };
    };
    expect(fn.Environment.Variables.USER_POOL_ID).toEqual({ Ref: idOf(stack.signIn.userPool) });
    const cognito = statementsOfRole(idOf(stack.statusApi.role)).filter((s) =>
      JSON.stringify(s.Action).includes('cognito'),
    );
    expect(cognito).toEqual([
      {
        Effect: 'Allow',
        Action: ['cognito-idp:AdminListGroupsForUser', 'cognito-idp:ListUsers'],
        Resource: { 'Fn::GetAtt': [idOf(stack.signIn.userPool), 'Arn'] },
      },
    ]);
  });

  it('publishes the pools and the app for the app and the CLI', () => {
    expect(outputs[STACK_OUTPUTS.userPoolId]?.Value).toEqual({ Ref: idOf(stack.signIn.userPool) });
    expect(outputs[STACK_OUTPUTS.userPoolClientId]?.Value).toEqual({ Ref: idOf(stack.signIn.client) });
    expect(outputs[STACK_OUTPUTS.identityPoolId]?.Value).toEqual({ Ref: idOf(stack.signIn.identityPool) });
    expect(JSON.stringify(outputs[STACK_OUTPUTS.appUrl]?.Value)).toContain(idOf(stack.app.distribution));
    expect(outputs[STACK_OUTPUTS.addinManifestUrl]?.Value).toEqual({
      'Fn::Join': [
        '',
        ['https://', { 'Fn::GetAtt': [idOf(stack.app.distribution), 'DomainName'] }, '/addin/manifest.xml'],
      ],
    });
  });
});

/**
 * Sign-in for people and the app's hosting, read back from the synthesized ClauseReviewStack:
 * the Cognito pools, the roles the identity pool hands out (allowed only execute-api:Invoke on
 * the status API), the administrators group's role known to the API, and the CloudFront
 * distribution (origin access control, HTTPS only, security headers), and the Word add-in's
 * pages beside the app (framed by Office's hosts only) with its manifest in the outputs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addinContentSecurityPolicy,
  addinSignInContentSecurityPolicy,
  appContentSecurityPolicy,
  cognitoEndpoints,
  OFFICE_WEB_HOSTS,
  officeFrameAncestors,
} from '../../lambdas/shared/app-csp.js';
import { ClauseReviewStack } from '../../lib/clause-review-stack.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { ADMINISTRATORS_GROUP, ReviewerSignIn } from '../../lib/reviewer-sign-in.js';
import { STACK_OUTPUTS } from '../../lib/stack-outputs.js';

type Resource = { Type: string; Properties: Record<string, unknown> };

/**
 * A template value as text, each reference written `<Ref:X>` or `<GetAtt:X.Attr>`: what a
 * `Fn::Join` of strings and references reads as once deployed.
 */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (v.Ref) return `<Ref:${v.Ref}>`;
  if (v['Fn::GetAtt']) return `<GetAtt:${v['Fn::GetAtt'].join('.')}>`;
  if (v['Fn::Join']) return v['Fn::Join'][1].map(asText).join(v['Fn::Join'][0]);
  throw new Error(`not a string, reference or join: ${JSON.stringify(value)}`);
}
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

let app: App;
let stack: ClauseReviewStack;
let resources: Record<string, Resource>;
let outputs: Record<string, { Value: unknown }>;

beforeAll(() => {
  const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as {
    context: Record<string, unknown>;
  };
  // No handler is bundled: these tests read resources and policies, not code.
  app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  stack = new ClauseReviewStack(app, 'ClauseReview', {
    stackName: 'clause-review',
    administrators: ['arn:aws:iam::123456789012:role/Ops'],
    officeTenants: ['contoso'],
  });
  const json = Template.fromStack(stack).toJSON();
  resources = json.Resources as Record<string, Resource>;
  outputs = json.Outputs as Record<string, { Value: unknown }>;
});

afterAll(() => {
  if (app) rmSync(app.outdir, { recursive: true, force: true });
});

const idOf = (c: IConstruct) =>
  Stack.of(c).getLogicalId(c instanceof CfnElement ? c : (c.node.defaultChild as CfnElement));
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
function only(type: string): Resource {
  const found = ofType(type);
  expect(
    found.map(([id]) => id),
    type,
  ).toHaveLength(1);
  return (found[0] as [string, Resource])[1];
}

/** Every statement of every policy attached to a role (inline or managed), by role logical id. */
function statementsOfRole(roleId: string): Statement[] {
  const attached = Object.entries(resources).filter(([, r]) => {
    if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') {
      const roles = (r.Properties.Roles ?? []) as { Ref?: string }[];
      return roles.some((x) => x.Ref === roleId);
    }
    return false;
  });
  const inline = (
    (resources[roleId]?.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]
  ).flatMap((p) => p.PolicyDocument.Statement);
  const managedArns = (resources[roleId]?.Properties.ManagedPolicyArns ?? []) as unknown[];
  expect(managedArns.filter((a) => typeof a !== 'object' || !('Ref' in (a as object)))).toEqual([]);
  return [
    ...inline,
    ...attached.flatMap(([, r]) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement),
  ];
}

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

describe('the app hosting', () => {
  it('serves a private bucket through origin access control, and only CloudFront may read it', () => {
    const config = only('AWS::CloudFront::Distribution').Properties.DistributionConfig as Record<
      string,
      unknown
    >;
    const [origin] = config.Origins as Record<string, unknown>[];
    expect(origin?.OriginAccessControlId).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/OriginAccessControl/), 'Id'],
    });
    expect(origin?.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    const oac = only('AWS::CloudFront::OriginAccessControl').Properties.OriginAccessControlConfig;
    expect(oac).toMatchObject({ OriginAccessControlOriginType: 's3', SigningBehavior: 'always' });
    const bucket = resources[idOf(stack.app.bucket)]?.Properties;
    expect(bucket?.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const policy = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::S3::BucketPolicy' &&
        JSON.stringify(r.Properties.Bucket).includes(idOf(stack.app.bucket)),
    );
    if (!policy) throw new Error('the app bucket has no bucket policy');
    const allows = (
      policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }
    ).Statement.filter((s) => s.Effect === 'Allow');
    expect(allows).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Condition: { StringEquals: { 'AWS:SourceArn': expect.anything() } },
      }),
    ]);
  });

  it('redirects viewers to HTTPS, with TLS 1.2 where the certificate lets it be chosen', () => {
    const config = only('AWS::CloudFront::Distribution').Properties.DistributionConfig as Record<
      string,
      Record<string, unknown>
    >;
    expect(config.DefaultCacheBehavior?.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.DefaultCacheBehavior?.AllowedMethods).toEqual(['GET', 'HEAD']);
    // The two other behaviours: the Word add-in's sign-in page first (CloudFront takes the first
    // pattern that matches), then its other pages, from the same origin, each with their own headers.
    expect(config.CacheBehaviors).toEqual([
      expect.objectContaining({
        PathPattern: 'addin/sign-in.html',
        ViewerProtocolPolicy: 'redirect-to-https',
        ResponseHeadersPolicyId: { Ref: idOf(stack.app.addinSignInHeaders) },
      }),
      expect.objectContaining({
        PathPattern: 'addin/*',
        TargetOriginId: (config.DefaultCacheBehavior as Record<string, unknown>).TargetOriginId,
        ViewerProtocolPolicy: 'redirect-to-https',
        AllowedMethods: ['GET', 'HEAD'],
        ResponseHeadersPolicyId: { Ref: idOf(stack.app.addinHeaders) },
      }),
    ]);
    expect(config.Logging).toMatchObject({ Prefix: 'cdn/' });
  });

  const headersOf = (policy: IConstruct) => {
    const config = resources[idOf(policy)]?.Properties.ResponseHeadersPolicyConfig as
      | { SecurityHeadersConfig: Record<string, Record<string, unknown>> }
      | undefined;
    if (!config) throw new Error(`no response headers policy ${idOf(policy)}`);
    return config.SecurityHeadersConfig;
  };
  const cspOf = (headers: Record<string, Record<string, unknown>>) =>
    asText(headers.ContentSecurityPolicy?.ContentSecurityPolicy);
  const region = '<Ref:AWS::Region>.<Ref:AWS::URLSuffix>';
  const bucket = (name: string) =>
    `https://clause-review-${name}-<Ref:AWS::AccountId>-<Ref:AWS::Region>.s3.${region}`;
  /** What the stack's policies let the pages reach, as the template writes it. */
  const stackConnections = () => ({
    api: `<GetAtt:${idOf(stack.statusApi.httpApi)}.ApiEndpoint>`,
    cognito: cognitoEndpoints('<Ref:AWS::Region>', '<Ref:AWS::URLSuffix>'),
    buckets: [bucket('intake'), bucket('results')],
  });

  it('answers with HSTS, a content security policy, nosniff, frame denial and a referrer policy', () => {
    expect(ofType('AWS::CloudFront::ResponseHeadersPolicy')).toHaveLength(3);
    const h = headersOf(stack.app.headers);
    expect(h.StrictTransportSecurity).toMatchObject({ AccessControlMaxAgeSec: 31_536_000, Override: true });
    expect(h.ContentTypeOptions).toEqual({ Override: true });
    expect(h.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(h.ReferrerPolicy).toEqual({ ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true });
    const csp = cspOf(h);
    expect(csp).toContain("frame-ancestors 'none'");
    // The stack's own API, Cognito's two endpoints and the two buckets: no wildcard host.
    expect(csp.split('; ')).toContain(
      [
        "connect-src 'self'",
        `<GetAtt:${idOf(stack.statusApi.httpApi)}.ApiEndpoint>`,
        `https://cognito-idp.${region}`,
        `https://cognito-identity.${region}`,
        bucket('intake'),
        bucket('results'),
      ].join(' '),
    );
    expect(csp).not.toContain('*');
    // The one policy the local app is served with too (lambdas/shared/app-csp.ts).
    expect(csp).toBe(appContentSecurityPolicy(stackConnections()));
    const distribution = only('AWS::CloudFront::Distribution').Properties.DistributionConfig as {
      DefaultCacheBehavior: { ResponsePoliciesId?: unknown; ResponseHeadersPolicyId?: unknown };
    };
    expect(distribution.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({
      Ref: idOf(stack.app.headers),
    });
  });

  it("lets Office's hosts, and nothing else, frame the add-in's pages; the rest of the app is never framed", () => {
    const h = headersOf(stack.app.addinHeaders);
    const app = headersOf(stack.app.headers);
    // The same headers as the app's, but the frame denial, which cannot name the Office hosts.
    expect(h.StrictTransportSecurity).toEqual(app.StrictTransportSecurity);
    expect(h.ContentTypeOptions).toEqual(app.ContentTypeOptions);
    expect(h.ReferrerPolicy).toEqual(app.ReferrerPolicy);
    expect(h.FrameOptions).toBeUndefined();
    const csp = cspOf(h);
    // Built from the same connections as the app's: it calls what the app calls.
    expect(csp).toBe(addinContentSecurityPolicy(stackConnections(), ['contoso']));
    const connect = (c: string) => c.split('; ').find((d) => d.startsWith('connect-src'));
    expect(connect(csp)).toBe(connect(cspOf(app)));
    const ancestors = /frame-ancestors ([^;]+)/.exec(csp)?.[1]?.split(' ');
    // Office for the web's own hosts, and the named tenant's SharePoint: no other tenant's.
    expect(ancestors).toEqual([
      ...OFFICE_WEB_HOSTS,
      'https://contoso.sharepoint.com',
      'https://contoso-my.sharepoint.com',
    ]);
    expect(ancestors).not.toContain('https://*.sharepoint.com');
    expect(ancestors?.every((a) => a.startsWith('https://'))).toBe(true);
    // Scripts pinned to their paths on Microsoft's CDN.
    expect(csp).toMatch(/script-src 'self' https:\/\/appsforoffice\.microsoft\.com\/lib\/1\/hosted\/ /);
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    // It differs from the app's only where Office needs it to.
    const appDirectives = cspOf(app).split('; ');
    expect(
      csp
        .split('; ')
        .filter((d) => !appDirectives.includes(d))
        .map((d) => d.split(' ')[0]),
    ).toEqual(['script-src', 'style-src', 'frame-ancestors']);
  });

  it("frames the add-in's sign-in page nowhere: Office opens it in a window of its own", () => {
    const h = headersOf(stack.app.addinSignInHeaders);
    const csp = cspOf(h);
    expect(csp).toBe(addinSignInContentSecurityPolicy(stackConnections()));
    expect(csp).toContain("frame-ancestors 'none'");
    expect(h.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    // office.js as the pane loads it.
    expect(csp.split('; ').find((d) => d.startsWith('script-src'))).toBe(
      cspOf(headersOf(stack.app.addinHeaders))
        .split('; ')
        .find((d) => d.startsWith('script-src')),
    );
  });

  it("lets only the app's origin make CORS requests to the API and the document buckets (the add-in is on it)", () => {
    const origin = {
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [idOf(stack.app.distribution), 'DomainName'] }]],
    };
    // The API's rule is set by UpdateApi once the API and the distribution exist (the CSP names
    // the API, so the template cannot); its template carries none for CloudFormation to reset.
    expect(resources[idOf(stack.statusApi.httpApi)]?.Properties.CorsConfiguration).toBeUndefined();
    const cors = resources[idOf(stack.app.apiCors)]?.Properties ?? {};
    for (const on of ['Create', 'Update'] as const) {
      const call = JSON.parse(asText(cors[on])) as {
        action: string;
        parameters: { ApiId: string; CorsConfiguration: Record<string, unknown> };
      };
      expect(call.action).toBe('UpdateApi');
      expect(call.parameters.ApiId).toBe(`<Ref:${idOf(stack.statusApi.httpApi)}>`);
      expect(call.parameters.CorsConfiguration.AllowOrigins).toEqual([
        `https://<GetAtt:${idOf(stack.app.distribution)}.DomainName>`,
      ]);
      expect(call.parameters.CorsConfiguration.AllowMethods).toEqual(['GET', 'POST']);
      expect(call.parameters.CorsConfiguration.AllowHeaders).toEqual(
        expect.arrayContaining(['authorization', 'x-amz-security-token', 'x-amz-date']),
      );
    }
    expect(JSON.parse(asText(cors.Delete))).toMatchObject({ action: 'DeleteCorsConfiguration' });
    const rules = (bucket: IConstruct) => {
      const cors = resources[idOf(bucket)]?.Properties.CorsConfiguration as
        | { CorsRules: Record<string, unknown>[] }
        | undefined;
      return cors?.CorsRules ?? [];
    };
    expect(rules(stack.documentBuckets.intakeBucket)).toEqual([
      expect.objectContaining({ AllowedOrigins: [origin], AllowedMethods: ['POST'] }),
    ]);
    expect(rules(stack.documentBuckets.resultsBucket)).toEqual([
      expect.objectContaining({ AllowedOrigins: [origin], AllowedMethods: ['GET', 'HEAD'] }),
    ]);
    expect(rules(stack.documentBuckets.intakeBucket)[0]?.ExposedHeaders).toContain('x-amz-version-id');
  });

  it('lets the app connect only to its own origin and the hosts it names', () => {
    const csp = appContentSecurityPolicy({
      api: 'https://api.example',
      cognito: ['https://cognito-idp.example'],
      buckets: ['https://cognito-idp.example', 'https://bucket.example'],
    });
    // Each host once, in order.
    expect(csp.split('; ')).toContain(
      "connect-src 'self' https://api.example https://cognito-idp.example https://bucket.example",
    );
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain('unsafe-');
    expect(csp.split('; ').at(-1)).toBe('upgrade-insecure-requests');
    expect(
      appContentSecurityPolicy({ api: 'http://127.0.0.1:1', cognito: [], buckets: [], https: false }),
    ).not.toContain('upgrade-insecure-requests');
  });

  it("gives the add-in's pages the app's connections, office.js and inline styles, framed by Office only", () => {
    const connections = {
      api: 'https://api.example',
      cognito: ['https://cognito-idp.example'],
      buckets: ['https://bucket.example'],
    };
    const addin = addinContentSecurityPolicy(connections).split('; ');
    const app = appContentSecurityPolicy(connections).split('; ');
    expect(addin).toContain(app.find((d) => d.startsWith('connect-src')));
    expect(addin).toContain(
      "script-src 'self' https://appsforoffice.microsoft.com/lib/1/hosted/ https://ajax.aspnetcdn.com/ajax/3.5/MicrosoftAjax.js",
    );
    expect(addin).toContain("style-src 'self' 'unsafe-inline'");
    expect(addin).toContain(`frame-ancestors ${OFFICE_WEB_HOSTS.join(' ')}`);
    expect(officeFrameAncestors(['fabrikam'])).toEqual([
      ...OFFICE_WEB_HOSTS,
      'https://fabrikam.sharepoint.com',
      'https://fabrikam-my.sharepoint.com',
    ]);
    expect(() => officeFrameAncestors(['*'])).toThrow(/'\*' is not a SharePoint tenant name/);
    expect(addin.at(-1)).toBe('upgrade-insecure-requests');
    expect(addinContentSecurityPolicy({ ...connections, https: false })).not.toContain(
      'upgrade-insecure-requests',
    );
  });
});

describe("the app's files, when the stack is given them", () => {
  let dir: string;
  let withFiles: ClauseReviewStack;
  let filesApp: App;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'app-files-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>reviewer</title>');
    mkdirSync(join(dir, 'addin'));
    writeFileSync(join(dir, 'addin', 'taskpane.html'), '<!doctype html><title>add-in</title>');
    const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as {
      context: Record<string, unknown>;
    };
    filesApp = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
    withFiles = new ClauseReviewStack(filesApp, 'ClauseReview', { appDirectory: dir });
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    if (filesApp) rmSync(filesApp.outdir, { recursive: true, force: true });
  });

  it('are copied into the app bucket with a config.json naming the API and the pools, and the CDN refreshed', () => {
    const json = Template.fromStack(withFiles).toJSON();
    const copies = Object.values(json.Resources as Record<string, Resource>).filter(
      (r) => r.Type === 'Custom::CDKBucketDeployment',
    );
    expect(copies).toHaveLength(1);
    const copy = copies[0]?.Properties ?? {};
    expect(copy.DestinationBucketName).toEqual({ Ref: idOf(withFiles.app.bucket) });
    expect(copy.DistributionPaths).toEqual(['/*']);
    expect(copy.Prune).toBe(true);
    // config.json is the second source; its tokens are markers resolved at deployment.
    const markers = JSON.stringify(copy.SourceMarkers);
    for (const c of [withFiles.statusApi.httpApi, withFiles.signIn.userPool, withFiles.signIn.client]) {
      expect(markers).toContain(`{"Ref":"${idOf(c)}"}`);
    }
    expect(markers).toContain(`{"Ref":"${idOf(withFiles.signIn.identityPool)}"}`);
    // The add-in's manifest is the third source: it names the distribution, filled in at deployment.
    expect(markers).toContain(`{"Fn::GetAtt":["${idOf(withFiles.app.distribution)}","DomainName"]}`);
  });

  it('leave cdk-nag nothing unacknowledged', () => {
    const report = new AwsSolutionsChecks(filesApp).validateScope(withFiles);
    const findings = report.violations.map(
      (v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });

  it('must be a built app with its add-in', () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-app-'));
    const noAddin = mkdtempSync(join(tmpdir(), 'no-addin-'));
    writeFileSync(join(noAddin, 'index.html'), '<!doctype html><title>reviewer</title>');
    const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as {
      context: Record<string, unknown>;
    };
    const other = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
    try {
      expect(() => new ClauseReviewStack(other, 'NoApp', { appDirectory: empty })).toThrow(
        /files.directory must hold the built app \(index.html\)/,
      );
      expect(() => new ClauseReviewStack(other, 'NoAddin', { appDirectory: noAddin })).toThrow(
        /files.directory must hold the built Word add-in \(addin\/taskpane.html\)/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
      rmSync(noAddin, { recursive: true, force: true });
      rmSync(other.outdir, { recursive: true, force: true });
    }
  });
});

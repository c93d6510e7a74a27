/**
 * The reviewer app's hosting, read back from the synthesized ClauseReviewStack: the CloudFront
 * distribution (origin access control to a private bucket, HTTPS only, security headers and the
 * app's content security policy), the Word add-in's pages beside the app (framed by Office's
 * hosts only, its sign-in page by nothing), CORS for the app's origin alone; and the app's files
 * copied into the bucket when the stack is given them. Sign-in: reviewer-access.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
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
import { asText, idOf, ofType, only, type Resource, reviewerStack } from './reviewer-access-stack.js';

let stack: ClauseReviewStack;
let resources: Record<string, Resource>;

beforeAll(() => {
  ({ stack, resources } = reviewerStack());
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

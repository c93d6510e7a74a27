import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Aws, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import {
  APP_API_CORS,
  type AppConnections,
  addinContentSecurityPolicy,
  addinSignInContentSecurityPolicy,
  appContentSecurityPolicy,
  cognitoEndpoints,
  OFFICE_TENANT,
} from '../lambdas/stack-interface.js';
import { ADDIN_FILES, ADDIN_PATH, addinManifest } from './addin-manifest.js';
import { checkPattern, checkRange } from './checks.js';
import { acknowledgeDeploymentHandler } from './deployment-handler-findings.js';
import { ValidationError } from './errors.js';

/** A bucket the app reaches with presigned URLs. */
export interface DocumentBucketAccess {
  readonly bucket: s3.Bucket;
  /** Its name, known before deployment (`topology().buckets.…name`). */
  readonly name: string;
  /** What the browser does there: PUT (uploads) or GET (downloads). */
  readonly methods: readonly s3.HttpMethods[];
}

/** Properties of {@link ReviewerAppHosting}. */
export interface ReviewerAppHostingProps {
  /** The status API the app calls; it answers the app's CORS preflights. */
  readonly api: apigw.HttpApi;
  /**
   * Buckets the app talks to through presigned URLs (uploads with PUT, reports with GET), by
   * the name the topology gives them: the content security policy names them by that name, so
   * it does not depend on the buckets, whose CORS rules name the app's origin.
   */
  readonly documentBuckets: readonly DocumentBucketAccess[];
  /**
   * The app's built files (a directory holding index.html, from `esbuild`) and the
   * `config.json` written beside them (where the API and the pools are). Deployed into the
   * bucket on every deployment, files no longer built removed, and the CDN's copies invalidated.
   * @default none: the bucket is left as it is
   */
  readonly files?: { readonly directory: string; readonly config: Readonly<Record<string, unknown>> };
  /** Where the app bucket's and the CDN log bucket's own S3 access logs go. */
  readonly accessLogsBucket: s3.IBucket;
  /**
   * Days the CDN's access logs are kept (1-3650).
   * @default 90
   */
  readonly logDays?: number;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * The Microsoft 365 tenants whose SharePoint and OneDrive for work may frame the Word add-in's
   * task pane in Word on the web (`contoso` for contoso.sharepoint.com and
   * contoso-my.sharepoint.com). Office for the web's own hosts may always frame it.
   * @default none: Word on the web shows the pane only for documents in personal OneDrive
   */
  readonly officeTenants?: readonly string[];
}

/**
 * The reviewer app's hosting: a private bucket (no public access, TLS only) that only the
 * CloudFront distribution can read, through origin access control
 * (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/private-content-restricting-access-to-s3.html);
 * viewers are redirected to HTTPS, and every answer carries security headers (HSTS, CSP, nosniff, frame denial, referrer policy).
 * The Word add-in's pages are under `addin/` on the same origin (so the API's and the buckets'
 * CORS rules for the app's origin cover them), with the same headers except that Office's hosts
 * may frame them.
 */
export class ReviewerAppHosting extends Construct {
  readonly bucket: s3.Bucket;
  readonly distribution: cloudfront.Distribution;
  readonly headers: cloudfront.ResponseHeadersPolicy;
  /** The Word add-in's headers (under `addin/`): the app's, but framed by Office's hosts. */
  readonly addinHeaders: cloudfront.ResponseHeadersPolicy;
  /** The add-in's sign-in page's headers: office.js, and framed by nothing (Office opens it in a window). */
  readonly addinSignInHeaders: cloudfront.ResponseHeadersPolicy;
  /** Sets the status API's CORS rule to the app's origin once both exist. */
  readonly apiCors: cr.AwsCustomResource;
  /** The copy of the app's files into the bucket, when files were given. */
  deployment?: s3deploy.BucketDeployment;

  constructor(scope: Construct, id: string, props: ReviewerAppHostingProps) {
    super(scope, id);
    const logDays = checkRange(this, 'ReviewerAppHosting logDays', props.logDays ?? 90, {
      min: 1,
      max: 3650,
    });
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const common = {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogsBucket,
      removalPolicy,
    } as const;
    this.bucket = new s3.Bucket(this, 'Files', {
      ...common,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      serverAccessLogsPrefix: 'app/',
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(30) }],
    });
    // CloudFront's standard logs are delivered with an ACL, so this bucket keeps ACLs on
    // (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/standard-logging-legacy-s3.html).
    const logs = new s3.Bucket(this, 'CdnLogs', {
      ...common,
      objectOwnership: s3.ObjectOwnership.OBJECT_WRITER,
      serverAccessLogsPrefix: 'cdn-logs/',
      lifecycleRules: [{ expiration: Duration.days(logDays) }],
    });

    ({
      headers: this.headers,
      addinHeaders: this.addinHeaders,
      addinSignInHeaders: this.addinSignInHeaders,
    } = this.headerPolicies(props));
    const files = {
      origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
    };
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'clause-review reviewer app',
      defaultRootObject: 'index.html',
      defaultBehavior: { ...files, responseHeadersPolicy: this.headers },
      // CloudFront takes the first pattern that matches, in this order.
      additionalBehaviors: {
        [`${ADDIN_PATH}${ADDIN_FILES.signIn}`]: { ...files, responseHeadersPolicy: this.addinSignInHeaders },
        [`${ADDIN_PATH}*`]: { ...files, responseHeadersPolicy: this.addinHeaders },
      },
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: logs,
      logFilePrefix: 'cdn/',
    });
    this.apiCors = this.allowBrowser(props);
    if (props.files) this.deploy(props.files, removalPolicy);
    this.acknowledge();
  }

  /**
   * The security headers of every answer: HSTS, nosniff and the referrer policy everywhere; the
   * app's CSP and frame denial; the task pane's CSP, framed by Office's hosts (no X-Frame-Options,
   * which cannot name them); the add-in's sign-in page's, framed by nothing.
   */
  private headerPolicies(props: ReviewerAppHostingProps) {
    const region = Aws.REGION;
    const suffix = Aws.URL_SUFFIX;
    // The stack's own API by its endpoint, never the region's execute-api hosts: the API's CORS
    // rule, which names the distribution, is set after both exist (allowBrowser), so this
    // policy may name the API without a cycle between them.
    const connections: AppConnections = {
      api: props.api.apiEndpoint,
      cognito: cognitoEndpoints(region, suffix),
      // The S3 client presigns virtual-hosted URLs on the regional endpoint.
      buckets: props.documentBuckets.map((b) => `https://${b.name}.s3.${region}.${suffix}`),
    };
    const tenants = props.officeTenants ?? [];
    for (const tenant of tenants) {
      checkPattern(this, 'officeTenants', tenant, OFFICE_TENANT, 'name SharePoint tenants like contoso');
    }
    const policy = (id: string, comment: string, csp: string, denyFrames: boolean) =>
      new cloudfront.ResponseHeadersPolicy(this, id, {
        comment,
        securityHeadersBehavior: {
          strictTransportSecurity: {
            accessControlMaxAge: Duration.days(365),
            includeSubdomains: true,
            override: true,
          },
          contentTypeOptions: { override: true },
          referrerPolicy: {
            referrerPolicy: cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN,
            override: true,
          },
          contentSecurityPolicy: { contentSecurityPolicy: csp, override: true },
          ...(denyFrames
            ? { frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true } }
            : {}),
        },
      });
    return {
      headers: policy(
        'SecurityHeaders',
        'clause-review reviewer app: security headers on every answer',
        appContentSecurityPolicy(connections),
        true,
      ),
      addinHeaders: policy(
        'AddinSecurityHeaders',
        'clause-review Word add-in: security headers, framed by Office hosts only',
        addinContentSecurityPolicy(connections, tenants),
        false,
      ),
      addinSignInHeaders: policy(
        'AddinSignInSecurityHeaders',
        "clause-review Word add-in's sign-in page: office.js, never framed",
        addinSignInContentSecurityPolicy(connections),
        true,
      ),
    };
  }

  /** Copies the built app and its config.json into the bucket (a CloudFormation custom resource). */
  private deploy(files: NonNullable<ReviewerAppHostingProps['files']>, removalPolicy: RemovalPolicy): void {
    for (const [file, what] of [
      ['index.html', 'the built app (index.html)'],
      [
        `${ADDIN_PATH}${ADDIN_FILES.taskpane}`,
        `the built Word add-in (${ADDIN_PATH}${ADDIN_FILES.taskpane})`,
      ],
    ] as const) {
      if (!existsSync(join(files.directory, file))) {
        throw new ValidationError(
          'MissingFile',
          `ReviewerAppHosting files.directory must hold ${what}; got '${files.directory}'`,
          this,
        );
      }
    }
    // The add-in's manifest names the distribution, so it is written at deployment.
    const manifest = addinManifest({
      base: `${this.url}${ADDIN_PATH}`,
      deployment: Stack.of(this).stackName,
      supportUrl: this.url,
    });
    const deployment = new s3deploy.BucketDeployment(this, 'Deploy', {
      sources: [
        s3deploy.Source.asset(files.directory),
        s3deploy.Source.jsonData('config.json', files.config),
        s3deploy.Source.data(`${ADDIN_PATH}${ADDIN_FILES.manifest}`, manifest),
      ],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      prune: true,
      memoryLimit: 256,
      logGroup: new logs.LogGroup(this, 'DeployLogs', {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy,
      }),
    });
    this.deployment = deployment;
    acknowledgeDeploymentHandler(this, deployment, this.bucket);
  }

  /**
   * CORS for the app's origin alone: the status API answers its preflights (API Gateway does so
   * before authorization: https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html)
   * and the document buckets accept its presigned uploads and downloads
   * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html).
   *
   * The API's rule names the distribution and the distribution's CSP names the API, so one of
   * the two is set after both exist: the API's CORS, by UpdateApi from a custom resource that
   * runs again whenever the API or the origin changes (and removes the rule when deleted). The
   * API's template carries no CorsConfiguration, so CloudFormation leaves the rule alone.
   */
  private allowBrowser(props: ReviewerAppHostingProps): cr.AwsCustomResource {
    const origin = `https://${this.distribution.distributionDomainName}`;
    const apiId = props.api.apiId;
    const apiArn = Stack.of(this).formatArn({
      service: 'apigateway',
      account: '',
      resource: '/apis',
      resourceName: apiId,
    });
    const apiCors = new cr.AwsCustomResource(this, 'ApiCors', {
      onUpdate: {
        service: 'ApiGatewayV2',
        action: 'UpdateApi',
        parameters: {
          ApiId: apiId,
          CorsConfiguration: {
            AllowOrigins: [origin],
            AllowMethods: [...APP_API_CORS.allowMethods],
            AllowHeaders: [...APP_API_CORS.allowHeaders],
            MaxAge: APP_API_CORS.maxAgeSeconds,
          },
        },
        physicalResourceId: cr.PhysicalResourceId.of(`${apiId}-cors`),
        // The answer describes the whole API; only its id is kept as the resource's data.
        outputPaths: ['ApiId'],
      },
      onDelete: {
        service: 'ApiGatewayV2',
        action: 'DeleteCorsConfiguration',
        parameters: { ApiId: apiId },
        ignoreErrorCodesMatching: 'NotFoundException',
      },
      policy: cr.AwsCustomResourcePolicy.fromStatements([
        new iam.PolicyStatement({
          actions: ['apigateway:PATCH', 'apigateway:DELETE'],
          resources: [apiArn, `${apiArn}/cors`],
        }),
      ]),
      installLatestAwsSdk: false,
    });
    for (const { bucket, methods } of props.documentBuckets) {
      bucket.addCorsRule({
        allowedOrigins: [origin],
        allowedMethods: [...methods],
        allowedHeaders: ['*'],
        // The CLI and the app read the uploaded version from the answer to the upload's POST.
        exposedHeaders: ['ETag', 'x-amz-version-id'],
        maxAge: 3600,
      });
    }
    return apiCors;
  }

  /** The app's address. */
  get url(): string {
    return `https://${this.distribution.distributionDomainName}/`;
  }

  /** The Word add-in's manifest, for sideloading or the Microsoft 365 admin center. */
  get addinManifestUrl(): string {
    return `${this.url}${ADDIN_PATH}${ADDIN_FILES.manifest}`;
  }

  private acknowledge(): void {
    // The singleton function behind every AwsCustomResource of the stack (here, the API's CORS).
    const provider = Stack.of(this).node.tryFindChild(
      `AWS${cr.AwsCustomResource.PROVIDER_FUNCTION_UUID.replace(/-/g, '')}`,
    );
    const providerRole = provider?.node.tryFindChild('ServiceRole');
    if (providerRole) {
      Validations.of(providerRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "aws-cdk-lib's AwsCustomResource function, invoked only by CloudFormation to set the status API's CORS rule: " +
          'the AWS-managed AWSLambdaBasicExecutionRole policy only lets it write its own CloudWatch logs.',
      });
    }
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'The distribution serves only the static files of the sign-in app, which hold no data; the people who use ' +
          'it may travel, and every request for data goes to the IAM-authorised status API, so no country is blocked.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'The distribution serves only the static files of the app (GET and HEAD, cached, no origin logic); contracts ' +
          'and findings are reached only through the status API with SigV4 credentials, so a web ACL here would guard nothing.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          "The distribution has no custom domain, and with CloudFront's default *.cloudfront.net certificate the viewer " +
          'security policy cannot be chosen (CloudFront ignores one); a domain with an ACM certificate and TLSv1.2_2021 is the remedy.',
      },
    );
  }
}

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutBucketCorsCommand, type S3Client } from '@aws-sdk/client-s3';
import { ANALYSTS } from '../../lambdas/core/analysts/registry.js';
import {
  type AppConnections,
  addinContentSecurityPolicy,
  addinSignInContentSecurityPolicy,
  appContentSecurityPolicy,
} from '../../lambdas/shared/app-csp.js';
import { ADDIN_FILES, ADDIN_PATH } from '../../lib/addin-manifest.js';

/** A static file of a page this host serves (the reviewer app's, the add-in's). */
export interface AppFile {
  readonly body: Buffer;
  readonly contentType: string;
}

/** A page's files by path (`index.html`, `app.js`, `app.css`), as the bundlers in bin/ make them. */
export type AppFiles = ReadonlyMap<string, AppFile>;

/** What the served app is told: the configuration its config.json carries. */
export interface LocalAppOptions {
  readonly files: AppFiles;
  readonly apiUrl: string;
  readonly region: string;
  /**
   * Where the app may send requests besides its own origin: the API, and the emulator, which
   * serves Cognito and the presigned URLs. Plain HTTP on loopback, so nothing is upgraded.
   */
  readonly connect: Omit<AppConnections, 'https'>;
  /**
   * The emulator's user pool and identity pool: people sign in through them (at `endpoint`)
   * instead of typing the emulator's access key pair. @default the key pair
   */
  readonly cognito?: LocalCognito;
  /** @default 0 (a free port) */
  readonly port?: number;
}

/** Cognito pools on the emulator, as the app's config.json names them. */
export interface LocalCognito {
  readonly userPoolId: string;
  readonly clientId: string;
  readonly identityPoolId: string;
  /** The emulator, which serves both Cognito services. */
  readonly endpoint: string;
}

/** The reviewer app on loopback. */
export interface LocalApp {
  /** Base URL, ending in '/'. */
  readonly url: string;
  /** The app's origin, as the API's CORS rule and the buckets' name it. */
  readonly origin: string;
  close(): Promise<void>;
}

/** The config.json of a local app: sign-in through the emulator's Cognito pools, else with its access keys. */
export function localAppConfig(apiUrl: string, region: string, cognito?: LocalCognito) {
  return {
    apiUrl,
    region,
    signIn: cognito
      ? { kind: 'cognito', ...cognito }
      : {
          kind: 'keys',
          hint: "On the local stack, sign in with the emulator's access key pair (test / test).",
        },
    analysts: ANALYSTS.map((a) => ({ id: a.id, name: a.name })),
  };
}

/**
 * The security headers the hosted app is served with: the same policies (lambdas/shared/app-csp.ts).
 * The Word add-in's pages (under `addin/`) have the add-in's policy, which lets Office's hosts
 * frame them, and no X-Frame-Options, which cannot name those hosts; its sign-in page, which
 * Office opens in a window of its own, is framed by nothing.
 */
function securityHeaders(connect: Omit<AppConnections, 'https'>, path: string): Record<string, string> {
  const connections = { ...connect, https: false };
  const page: Record<string, string> =
    path === `${ADDIN_PATH}${ADDIN_FILES.signIn}`
      ? {
          'content-security-policy': addinSignInContentSecurityPolicy(connections),
          'x-frame-options': 'DENY',
        }
      : path.startsWith(ADDIN_PATH)
        ? { 'content-security-policy': addinContentSecurityPolicy(connections) }
        : { 'content-security-policy': appContentSecurityPolicy(connections), 'x-frame-options': 'DENY' };
  return {
    ...page,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cache-control': 'no-store',
  };
}

/**
 * Serves the bundled app (and the Word add-in's files under `addin/`, when given) and its config.json on loopback (GET and HEAD only; anything else
 * is 405, an unknown path 404), with the hosted app's security headers.
 */
export async function startLocalApp(options: LocalAppOptions): Promise<LocalApp> {
  const config = Buffer.from(
    JSON.stringify(localAppConfig(options.apiUrl, options.region, options.cognito), null, 2),
  );
  const send = (
    res: ServerResponse,
    status: number,
    type: string,
    body: Buffer,
    head: boolean,
    path = '',
  ) => {
    res.writeHead(status, {
      ...securityHeaders(options.connect, path),
      'content-type': type,
      'content-length': String(body.length),
    });
    res.end(head ? undefined : body);
  };
  const server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' });
      res.end();
      return;
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/^\/+/, '') || 'index.html';
    if (path === 'config.json') return send(res, 200, 'application/json', config, method === 'HEAD');
    const file = options.files.get(path);
    if (!file)
      return send(res, 404, 'text/plain; charset=utf-8', Buffer.from('Not Found'), method === 'HEAD');
    send(res, 200, file.contentType, file.body, method === 'HEAD', path);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * Lets the app's origin use the buckets through presigned URLs, as a bucket's CORS rules do
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html): the POST of an upload's
 * form to the intake bucket, and GET of the reports. `origin` may be several: the app's, and
 * an HTTPS proxy's in front of it (for Word).
 */
export async function allowAppOrigin(
  s3: S3Client,
  buckets: { readonly intake: string; readonly results: string },
  origin: string | readonly string[],
): Promise<void> {
  const rule = (methods: string[]) => ({
    AllowedOrigins: typeof origin === 'string' ? [origin] : [...origin],
    AllowedMethods: methods,
    AllowedHeaders: ['*'],
    ExposeHeaders: ['x-amz-version-id', 'etag'],
    MaxAgeSeconds: 600,
  });
  await s3.send(
    new PutBucketCorsCommand({ Bucket: buckets.intake, CORSConfiguration: { CORSRules: [rule(['POST'])] } }),
  );
  await s3.send(
    new PutBucketCorsCommand({
      Bucket: buckets.results,
      CORSConfiguration: { CORSRules: [rule(['GET', 'HEAD'])] },
    }),
  );
}

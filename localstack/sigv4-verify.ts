import { createHash, timingSafeEqual } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../lambdas/shared/sha256.js';

/** A request as it arrived, for verification. Header names lower-case. */
export interface IncomingSignedRequest {
  readonly method: string;
  /** Path as sent (still percent-encoded), without the query. */
  readonly path: string;
  readonly query: Readonly<Record<string, string | string[]>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** What the verifier checks against. */
export interface SigV4VerifierOptions {
  readonly region: string;
  /** @default 'execute-api' */
  readonly service?: string;
  /** The secret of an access key id, or undefined for an unknown key. */
  readonly secretOf: (accessKeyId: string) => string | undefined;
  /** How far the signature's time may be from now, as AWS allows. @default 15 minutes */
  readonly maxSkewMs?: number;
  readonly now?: () => number;
}

/** The outcome: the verified caller, or the reason for refusing (which API Gateway answers with 403). */
export type SigV4Verdict =
  | { readonly ok: true; readonly accessKeyId: string }
  | { readonly ok: false; readonly message: string };

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

function amzDate(value: string | undefined): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!m) return undefined;
  return new Date(
    Date.UTC(+(m[1] ?? 0), +(m[2] ?? 1) - 1, +(m[3] ?? 1), +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0)),
  );
}

/** What {@link checkSigV4Headers} read from an acceptable `Authorization` header. */
interface SignatureClaim {
  readonly accessKeyId: string;
  readonly secret: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
  readonly signedAt: Date;
}

/**
 * Everything of a SigV4 check that needs no body: a well-formed `Authorization` header, a known
 * access key, the credential scope (date, region, service) and the request time within the
 * allowed skew. A server runs it before reading the body, so an unknown caller is refused
 * without being read; {@link verifySigV4} then checks the payload hash and the signature.
 */
export function checkSigV4Headers(
  request: Omit<IncomingSignedRequest, 'body'>,
  options: SigV4VerifierOptions,
): SigV4Verdict {
  const claim = readClaim(request, options);
  return 'message' in claim ? claim : { ok: true, accessKeyId: claim.accessKeyId };
}

function readClaim(
  request: Omit<IncomingSignedRequest, 'body'>,
  options: SigV4VerifierOptions,
): SignatureClaim | { readonly ok: false; readonly message: string } {
  const service = options.service ?? 'execute-api';
  const now = options.now ?? Date.now;
  const header = request.headers.authorization;
  if (!header) return { ok: false, message: 'Missing Authentication Token' };
  const m = AUTHORIZATION.exec(header);
  if (!m)
    return {
      ok: false,
      message: 'Authorization header requires AWS4-HMAC-SHA256 Credential, SignedHeaders and Signature',
    };
  const [
    ,
    accessKeyId = '',
    scopeDate = '',
    region = '',
    scopeService = '',
    signedHeaderList = '',
    signature = '',
  ] = m;
  const secret = options.secretOf(accessKeyId);
  if (secret === undefined)
    return { ok: false, message: 'The security token included in the request is invalid.' };
  if (region !== options.region || scopeService !== service) {
    return {
      ok: false,
      message: `Credential should be scoped to region '${options.region}' and service '${service}'; got '${region}' and '${scopeService}'`,
    };
  }
  const signedAt = amzDate(request.headers['x-amz-date']);
  if (!signedAt)
    return { ok: false, message: 'the request must carry an X-Amz-Date header of the form YYYYMMDDTHHMMSSZ' };
  if (Math.abs(signedAt.getTime() - now()) > (options.maxSkewMs ?? 15 * 60_000)) {
    return { ok: false, message: 'Signature expired: the request time is too far from the server time' };
  }
  if (request.headers['x-amz-date']?.slice(0, 8) !== scopeDate) {
    return { ok: false, message: 'the credential scope date does not match X-Amz-Date' };
  }
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host'))
    return { ok: false, message: "the signed headers must include 'host'" };
  return { accessKeyId, secret, region, service, signedHeaders, signature, signedAt };
}

/**
 * Verifies an AWS Signature Version 4 `Authorization` header the way API Gateway's IAM
 * authorization does: known access key, credential scope (date, region, service), request time
 * within the allowed skew, a payload hash that matches the body, and the signature itself,
 * recomputed with `@smithy/signature-v4` over exactly the headers the caller signed.
 */
export async function verifySigV4(
  request: IncomingSignedRequest,
  options: SigV4VerifierOptions,
): Promise<SigV4Verdict> {
  const claim = readClaim(request, options);
  if ('message' in claim) return claim;
  const { accessKeyId, secret, region, service, signedHeaders, signature, signedAt } = claim;
  const claimedHash = request.headers['x-amz-content-sha256'];
  if (claimedHash !== undefined && claimedHash !== createHash('sha256').update(request.body).digest('hex')) {
    return { ok: false, message: 'The provided x-amz-content-sha256 header does not match the request body' };
  }
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined)
      return { ok: false, message: `signed header '${name}' is missing from the request` };
    headers[name] = value;
  }
  // The canonical request is made of exactly the headers the caller signed, whichever they
  // are: the signer adds no header of its own (applyChecksum off: curl, botocore and Postman
  // send no x-amz-content-sha256 to execute-api, where the SDK's clients do), and leaves out none
  // of them (signableHeaders: a `user-agent` a client chose to sign is signed), as the
  // specification builds it from the SignedHeaders list
  // (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html).
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey: secret },
    region,
    service,
    sha256: Sha256,
    uriEscapePath: true,
    applyChecksum: false,
  });
  const host = headers.host ?? '';
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: host.replace(/:\d+$/, ''),
      path: request.path,
      query: { ...request.query },
      headers,
      body: request.body,
    },
    { signingDate: signedAt, signableHeaders: new Set(signedHeaders) },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization ?? ''))?.[1] ?? '';
  const same =
    expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
  if (!same) {
    return {
      ok: false,
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    };
  }
  return { ok: true, accessKeyId };
}

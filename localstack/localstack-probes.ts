import { SignatureV4 } from '@smithy/signature-v4';
import { EMULATOR_CREDENTIALS } from '../lambdas/shared/aws-clients.js';
import { Sha256 } from '../lambdas/shared/sha256.js';

/** A read-only request that a service answers with 200 once its handlers are in place. */
interface Probe {
  /** The name requests are signed for (the credential scope LocalStack routes by). */
  readonly signingName: string;
  /** What it asks, for messages. */
  readonly operation: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

const json = (signingName: string, target: string, version = '1.0'): Probe => ({
  signingName,
  operation: target.split('.')[1] ?? target,
  method: 'POST',
  headers: { 'content-type': `application/x-amz-json-${version}`, 'x-amz-target': target },
  body: '{}',
});

const query = (signingName: string, action: string, version: string): Probe => ({
  signingName,
  operation: action,
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
  body: `Action=${action}&Version=${version}`,
});

/**
 * By LocalStack's service name: the first request the launcher sends each service. Each is a
 * listing that changes nothing, in the protocol the service's API model names (botocore's
 * `service-2.json`, which LocalStack parses requests with), signed as the SDK signs it.
 */
export const SERVICE_PROBES: Readonly<Record<string, Probe>> = {
  s3: { signingName: 's3', operation: 'ListBuckets', method: 'GET', headers: {} },
  sqs: json('sqs', 'AmazonSQS.ListQueues'),
  dynamodb: json('dynamodb', 'DynamoDB_20120810.ListTables'),
  sns: query('sns', 'ListTopics', '2010-03-31'),
  cloudwatch: query('monitoring', 'ListDashboards', '2010-08-01'),
  cloudformation: query('cloudformation', 'ListStacks', '2010-05-15'),
  iam: query('iam', 'ListRoles', '2010-05-08'),
  sts: query('sts', 'GetCallerIdentity', '2011-06-15'),
  ec2: query('ec2', 'DescribeRegions', '2016-11-15'),
  events: json('events', 'AWSEvents.ListRules', '1.1'),
  logs: json('logs', 'Logs_20140328.DescribeLogGroups', '1.1'),
  kms: json('kms', 'TrentService.ListKeys', '1.1'),
  ssm: json('ssm', 'AmazonSSM.DescribeParameters', '1.1'),
};

/** What a service said to its first request. */
export interface ProbeAnswer {
  /** It answered 200: its handlers are in place. */
  readonly ok: boolean;
  /** The operation and how it ended, e.g. `ListBuckets: HTTP 501 InternalFailure: no handler …`. */
  readonly detail: string;
}

/** The error code and message of an AWS error body: JSON (`__type`, `message`) or XML (`Code`, `Message`). */
function errorOf(body: string): string {
  const xml = (tag: string) => new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(body)?.[1];
  try {
    const parsed = JSON.parse(body) as { __type?: string; message?: string; Message?: string };
    const type = parsed.__type?.split('#').pop();
    if (type) return `${type}: ${parsed.message ?? parsed.Message ?? ''}`;
  } catch {
    // not JSON: an XML error
  }
  const code = xml('Code');
  return code ? `${code}: ${xml('Message') ?? ''}` : body.slice(0, 200);
}

/**
 * Sends `service` its first request (see {@link SERVICE_PROBES}) on `endpoint`. A refused
 * connection, a timeout or an answer other than 200 is not ready, with what happened.
 */
export async function probeService(
  endpoint: string,
  service: string,
  fetcher: typeof fetch = fetch,
): Promise<ProbeAnswer> {
  const probe = SERVICE_PROBES[service];
  if (!probe) throw new Error(`no first request is known for LocalStack service '${service}'`);
  const url = new URL(endpoint);
  const signer = new SignatureV4({
    credentials: EMULATOR_CREDENTIALS,
    region: 'us-east-1',
    service: probe.signingName,
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: probe.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: '/',
    query: {},
    headers: { host: url.host, ...probe.headers },
    ...(probe.body !== undefined ? { body: probe.body } : {}),
  });
  // fetch sets the Host header itself, to the same value.
  const { host: _host, ...headers } = signed.headers as Record<string, string>;
  try {
    const res = await fetcher(`${endpoint}/`, {
      method: probe.method,
      headers,
      ...(probe.body !== undefined ? { body: probe.body } : {}),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    if (res.status === 200) return { ok: true, detail: `${probe.operation}: HTTP 200` };
    return { ok: false, detail: `${probe.operation}: HTTP ${res.status} ${errorOf(text)}` };
  } catch (error) {
    return { ok: false, detail: `${probe.operation}: ${String(error)}` };
  }
}

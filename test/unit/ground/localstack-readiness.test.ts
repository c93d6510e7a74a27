/**
 * The LocalStack launcher's wait (localstack/localstack-readiness.ts) against a fake LocalStack:
 * a health endpoint whose services come up one by one, and services whose first request can
 * fail as LocalStack's does while a service's operations are still being routed. The clock is
 * the fake's: every pause of the wait moves it on.
 */
import { describe, expect, it } from 'vitest';
import { isLocalStackNotReadyError, LocalStackError } from '../../../localstack/errors.js';
import { probeService, SERVICE_PROBES } from '../../../localstack/localstack-probes.js';
import { waitForLocalStack } from '../../../localstack/localstack-readiness.js';

const ENDPOINT = 'http://127.0.0.1:4599';

/** LocalStack's answer while a service's operations are not yet routed (aws/handlers/service.py). */
function noHandler(service: string, operation: string): Response {
  return new Response(
    `<?xml version='1.0' encoding='utf-8'?>\n<Error><Code>InternalFailure</Code><Message>no handler for operation '${operation}' on service '${service}'</Message><RequestId>r-1</RequestId></Error>`,
    { status: 501, headers: { 'content-type': 'application/xml' } },
  );
}

/** The service a request was signed for: its credential scope, `<key>/<date>/<region>/<service>/aws4_request`. */
function signedFor(init: RequestInit | undefined): string {
  const auth = new Headers(init?.headers).get('authorization') ?? '';
  return /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(auth)?.[1] ?? 'unsigned';
}

interface FakeOptions {
  /** Per service: the clock time at which health first lists it enabled ('available'; 'unknown' before). */
  readonly enabledAt: Readonly<Record<string, number>>;
  /** Per signing name: how many first requests fail before one is answered. */
  readonly failures?: Readonly<Record<string, number>>;
  /** The gateway refuses connections before this time. @default 0 */
  readonly upAt?: number;
  /** Per service: a state health reports instead of the simulated one. */
  readonly stuck?: Readonly<Record<string, string>>;
}

/** A LocalStack that loads each service lazily: `available` until its first answered request, then `running`. */
function fakeLocalStack(o: FakeOptions) {
  let clock = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const running = new Set<string>();
  const failures = { ...o.failures };
  const log: string[] = [];
  const bySigningName = Object.fromEntries(
    Object.entries(SERVICE_PROBES).map(([s, p]) => [p.signingName, s]),
  );
  const fetcher = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    if (clock < (o.upAt ?? 0)) throw new TypeError('fetch failed: connect ECONNREFUSED');
    if (url.endsWith('/_localstack/health')) {
      const services = Object.fromEntries(
        Object.entries(o.enabledAt).map(([s, at]) => [
          s,
          o.stuck?.[s] ?? (running.has(s) ? 'running' : clock >= at ? 'available' : 'unknown'),
        ]),
      );
      log.push(`health@${clock}`);
      return Response.json({ services, edition: 'community', version: '2026.3.0' });
    }
    const signing = signedFor(init);
    const service = bySigningName[signing] ?? signing;
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    try {
      await Promise.resolve();
      log.push(`${service}@${clock}`);
      if ((failures[signing] ?? 0) > 0) {
        failures[signing] = (failures[signing] ?? 0) - 1;
        return noHandler(service, SERVICE_PROBES[service]?.operation ?? '?');
      }
      running.add(service);
      return new Response('{}', { status: 200 });
    } finally {
      inFlight--;
    }
  }) as typeof fetch;
  return {
    fetch: fetcher,
    now: () => clock,
    sleep: async (ms: number) => {
      clock += ms;
    },
    log,
    mostInFlight: () => mostInFlight,
  };
}

describe('waitForLocalStack', () => {
  it('waits until health lists every service, then has each answer a first request in turn, asking again after an InternalFailure', async () => {
    // The gateway answers at 500 ms; s3, sqs and dynamodb come up one by one; S3's first
    // request meets LocalStack still routing its operations.
    const fake = fakeLocalStack({
      upAt: 500,
      enabledAt: { s3: 750, sqs: 1000, dynamodb: 1500 },
      failures: { s3: 1 },
    });
    const readiness = await waitForLocalStack({
      endpoint: ENDPOINT,
      services: ['s3', 'sqs', 'dynamodb'],
      timeoutMs: 10_000,
      ...fake,
    });
    expect(readiness.version).toBe('2026.3.0');
    expect(readiness.services).toEqual([
      { service: 's3', readyAfterMs: 1750, retries: 1 },
      { service: 'sqs', readyAfterMs: 1750, retries: 0 },
      { service: 'dynamodb', readyAfterMs: 1750, retries: 0 },
    ]);
    expect(readiness.tookMs).toBe(1750);
    // Health polls from 0 to 1500 ms every 250 ms (the first two refused): seven.
    expect(readiness.healthPolls).toBe(7);
    // No service is asked before health lists all of them; each is asked alone, and S3 again
    // before SQS is asked at all; each answered service's health is read as running.
    expect(fake.log.filter((l) => !l.startsWith('health'))).toEqual([
      's3@1500',
      's3@1750',
      'sqs@1750',
      'dynamodb@1750',
    ]);
    expect(fake.log.filter((l) => l.startsWith('health'))).toHaveLength(5 + 3);
    expect(fake.mostInFlight()).toBe(1);
  });

  it('names the service that never answers its first request, with its last answer and state', async () => {
    const fake = fakeLocalStack({ enabledAt: { s3: 0, sqs: 0 }, failures: { sqs: 1_000_000 } });
    const error = await waitForLocalStack({
      endpoint: ENDPOINT,
      services: ['s3', 'sqs'],
      timeoutMs: 5000,
      ...fake,
    }).catch((e: unknown) => e);
    expect(isLocalStackNotReadyError(error)).toBe(true);
    if (!isLocalStackNotReadyError(error)) return;
    expect(error.service).toBe('sqs');
    expect(error.state).toBe('available');
    expect(error.message).toBe(
      "LocalStack's 'sqs' was not ready within 5000 ms: its first request was not answered " +
        "(ListQueues: HTTP 501 InternalFailure: no handler for operation 'ListQueues' on service 'sqs') " +
        `(its health: available) on ${ENDPOINT}`,
    );
    // It gave up at the deadline, not before, and not long after.
    expect(fake.now()).toBeGreaterThan(5000);
    expect(fake.now()).toBeLessThanOrEqual(5250);
  });

  it('names the service its health never lists enabled', async () => {
    const fake = fakeLocalStack({ enabledAt: { s3: 0, sns: 0 }, stuck: { sns: 'error' } });
    const error = await waitForLocalStack({
      endpoint: ENDPOINT,
      services: ['s3', 'sns'],
      timeoutMs: 2000,
      ...fake,
    }).catch((e: unknown) => e);
    expect(isLocalStackNotReadyError(error) && [error.service, error.state]).toEqual(['sns', 'error']);
    expect(String(error)).toContain(
      "'sns' was not ready within 2000 ms: its health does not list it enabled",
    );
    // Nothing was asked of a LocalStack that never listed every service.
    expect(fake.log.every((l) => l.startsWith('health'))).toBe(true);
  });

  it('waits for a service that answered until its health says running', async () => {
    const fake = fakeLocalStack({ enabledAt: { kms: 0 }, stuck: { kms: 'starting' } });
    const error = await waitForLocalStack({
      endpoint: ENDPOINT,
      services: ['kms'],
      timeoutMs: 1000,
      ...fake,
    }).catch((e: unknown) => e);
    expect(isLocalStackNotReadyError(error) && error.message).toMatch(
      /'kms' was not ready within 1000 ms: it answered, but its health does not say running \(its health: starting\)/,
    );
  });

  it('says so when the health endpoint never answers', async () => {
    const fake = fakeLocalStack({ upAt: Number.POSITIVE_INFINITY, enabledAt: { s3: 0 } });
    const error = await waitForLocalStack({
      endpoint: ENDPOINT,
      services: ['s3'],
      timeoutMs: 3000,
      ...fake,
    }).catch((e: unknown) => e);
    expect(isLocalStackNotReadyError(error) && error.message).toBe(
      `LocalStack's 's3' was not ready within 3000 ms: the health endpoint does not answer (its health: not listed) on ${ENDPOINT}`,
    );
  });

  it('refuses at once a service LocalStack has disabled', async () => {
    const fake = fakeLocalStack({ enabledAt: { s3: 0, sqs: 0 }, stuck: { sqs: 'disabled' } });
    const error = await waitForLocalStack({
      endpoint: ENDPOINT,
      services: ['s3', 'sqs'],
      timeoutMs: 60_000,
      ...fake,
    }).catch((e: unknown) => e);
    expect(isLocalStackNotReadyError(error) && [error.service, error.state]).toEqual(['sqs', 'disabled']);
    expect(String(error)).toContain("LocalStack has 'sqs' disabled: it is not in its SERVICES");
    expect(fake.now()).toBe(0);
  });

  it('stops waiting once LocalStack has exited, saying so', async () => {
    const fake = fakeLocalStack({ upAt: Number.POSITIVE_INFINITY, enabledAt: { s3: 0 } });
    let polls = 0;
    const error = await waitForLocalStack({
      endpoint: ENDPOINT,
      services: ['s3'],
      timeoutMs: 60_000,
      gone: () => (++polls > 3 ? 'exited with code 1' : undefined),
      ...fake,
    }).catch((e: unknown) => e);
    expect(isLocalStackNotReadyError(error) && error.message).toBe(
      `LocalStack exited with code 1 (its health: not listed) on ${ENDPOINT}`,
    );
    expect(fake.now()).toBe(750);
  });

  it('refuses a service it knows no first request for, before asking anything', async () => {
    const fake = fakeLocalStack({ enabledAt: { s3: 0 } });
    const error = await waitForLocalStack({
      endpoint: ENDPOINT,
      services: ['s3', 'lambda'],
      timeoutMs: 1000,
      ...fake,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalStackError);
    expect(String(error)).toMatch(
      /no first request is known for LocalStack service\(s\) 'lambda'.*known: s3, sqs/,
    );
    expect(fake.log).toEqual([]);
  });
});

describe('probeService', () => {
  it('signs each first request for its service, so that LocalStack routes it there', async () => {
    const seen: Record<string, string> = {};
    const fetcher = (async (_input: string | URL | Request, init?: RequestInit) => {
      seen[signedFor(init)] =
        new Headers(init?.headers).get('x-amz-target') ?? String(init?.body ?? init?.method);
      return new Response('', { status: 200 });
    }) as typeof fetch;
    for (const service of Object.keys(SERVICE_PROBES)) {
      expect(await probeService(ENDPOINT, service, fetcher)).toMatchObject({ ok: true });
    }
    expect(seen).toMatchObject({
      s3: 'GET',
      sqs: 'AmazonSQS.ListQueues',
      dynamodb: 'DynamoDB_20120810.ListTables',
      sns: 'Action=ListTopics&Version=2010-03-31',
      monitoring: 'Action=ListDashboards&Version=2010-08-01',
      logs: 'Logs_20140328.DescribeLogGroups',
    });
    expect(Object.keys(seen)).toHaveLength(Object.keys(SERVICE_PROBES).length);
  });

  it("says what a service answered instead: a JSON error's type, an XML error's code, a refused connection", async () => {
    const answers = [
      Response.json(
        { __type: 'com.amazonaws.dynamodb.v20120810#InternalFailure', message: 'not yet' },
        { status: 500 },
      ),
      noHandler('s3', 'ListBuckets'),
    ];
    const fetcher = (async () => {
      const next = answers.shift();
      if (!next) throw new TypeError('fetch failed');
      return next;
    }) as typeof fetch;
    expect(await probeService(ENDPOINT, 'dynamodb', fetcher)).toEqual({
      ok: false,
      detail: 'ListTables: HTTP 500 InternalFailure: not yet',
    });
    expect(await probeService(ENDPOINT, 's3', fetcher)).toEqual({
      ok: false,
      detail: "ListBuckets: HTTP 501 InternalFailure: no handler for operation 'ListBuckets' on service 's3'",
    });
    expect(await probeService(ENDPOINT, 'sqs', fetcher)).toEqual({
      ok: false,
      detail: 'ListQueues: TypeError: fetch failed',
    });
  });
});

/**
 * POST /quote through the status API's handler: the document priced as intake prices it, with
 * no job recorded (no DynamoDB or S3 command at all), and each refusal with its status; and the
 * core's job requests the handler calls (errors, the caller as the core takes it, decisions).
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { actorOf } from '../../../lambdas/api/access.js';
import {
  isServiceBusyError,
  isUnprocessableDocumentError,
  type ServiceBusyError,
  UnprocessableDocumentError,
} from '../../../lambdas/api/errors.js';
import { configureApi, handler } from '../../../lambdas/api/handler.js';
import { refusals } from '../../../lambdas/api/jobs-api.js';
import { MAX_BODY_BYTES, MAX_QUOTE_BODY_BYTES, maxBodyBytes } from '../../../lambdas/api/limits.js';
import { ANALYSTS, selectAnalysts, withModels } from '../../../lambdas/core/analysts/index.js';
import { findDocumentContext } from '../../../lambdas/core/documents/document-context.js';
import { parseDocument } from '../../../lambdas/core/documents/index.js';
import { ceilingCovers, quoteJob } from '../../../lambdas/core/intake/quote.js';
import { readDecisionRequest } from '../../../lambdas/core/jobs/decision-request.js';
import {
  DocumentUnreadableError,
  InvalidJobRequestError,
  isDocumentUnreadableError,
  isInvalidJobRequestError,
  isJobConflictError,
  isJobNotFoundError,
  isJobRequestError,
  isQuoteBusyError,
  JobConflictError,
  JobNotFoundError,
  MAX_QUOTE_DOCUMENT_BYTES,
  QUOTE_DOCUMENT_LIMITS,
  QuoteBusyError,
  quoteRequest,
} from '../../../lambdas/core/jobs/index.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import { shippedScreen } from '../../../lambdas/core/screen/index.js';
import { askApi, iamCaller } from '../../helpers/api-event.js';

const ALICE = 'arn:aws:iam::123456789012:user/alice';
const FILE = 'KENTUCKYUTILITIESCO_03_25_2003-EX-10_65-TRANSPORTATION_AGREEMENT.txt';
const BYTES = readFileSync(`test/fixtures/contracts/${FILE}`);
/** The configured panel: not the model table's defaults, so the quote is seen to price these. */
const MODELS = { primary: FALLBACK_MODEL_ID, fallback: PRIMARY_MODEL_ID };
const ddb = mockClient(DynamoDBDocumentClient);
const s3mock = mockClient(S3Client);

configureApi({
  db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  s3: new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' } }),
  tableName: 'state',
  intakeBucket: 'intake-bucket',
  intakePrefix: 'incoming/',
  resultsBucket: 'results-bucket',
  defaultLane: 'realtime',
  defaultCeilingMicros: 5_000_000,
  uploadUrlSeconds: 600,
  reportUrlSeconds: 300,
  sqs: new SQSClient({ region: 'us-east-1' }),
  laneQueueUrls: { realtime: 'https://sqs/rt', batch: 'https://sqs/b' },
  finalizeQueueUrl: 'https://sqs/fin',
  resultsPrefix: 'reports/',
  models: MODELS,
  maxDocumentBytes: 10 * 1024 * 1024,
  chunkClauses: 8,
});

beforeEach(() => {
  ddb.reset();
  s3mock.reset();
});

async function post(path: string, body: string) {
  return askApi(handler, { method: 'POST', path, body, authorizer: iamCaller(ALICE) });
}

const quote = (fields: Record<string, unknown>) =>
  post('/quote', JSON.stringify({ filename: FILE, document: BYTES.toString('base64'), ...fields }));

/** What intake computes for this document: context, panel with the job's models, quoteJob. */
async function intakeQuote(analysts: string[] | undefined) {
  const parsed = await parseDocument(BYTES, { key: FILE, maxBytes: 10 * 1024 * 1024 });
  const panel = withModels(selectAnalysts(analysts), MODELS);
  return { parsed, quote: quoteJob(parsed.clauses, panel, findDocumentContext(parsed.text, parsed.clauses)) };
}

describe('POST /quote', () => {
  it('prices the document with the configured models as intake does, and records nothing', async () => {
    const r = await quote({
      analysts: ['ip-counsel', 'liability-counsel'],
      ceilingUsd: 50,
      fullPanel: true,
    });
    const expected = await intakeQuote(['ip-counsel', 'liability-counsel']);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      filename: FILE,
      format: 'txt',
      bytes: BYTES.length,
      clauses: expected.parsed.clauses.length,
      calls: expected.parsed.clauses.length * 2,
      options: {
        lane: 'realtime',
        ceilingUsd: 50,
        analysts: ['liability-counsel', 'ip-counsel'],
        fullPanel: true,
      },
      quote: {
        expectedMicros: expected.quote.expectedMicros,
        worstCaseMicros: expected.quote.worstCaseMicros,
        expectedUsd: Math.round(expected.quote.expectedMicros) / 1e6,
      },
      wouldStart: true,
    });
    expect(expected.quote.expectedMicros).toBeGreaterThan(0);
    // No job item, no upload, no listing: a quote leaves nothing behind.
    expect(ddb.calls()).toHaveLength(0);
    expect(s3mock.calls()).toHaveLength(0);
  });

  it('answers the parties it read, and refuses a party the contract does not have, naming those it has', async () => {
    const r = await quote({ ceilingUsd: 50 });
    expect(r.status).toBe(200);
    expect(r.body.parties).toEqual({
      found: [
        { name: 'TENNESSEE GAS PIPELINE COMPANY', defined: 'Transporter', side: 'supplier' },
        { name: 'LOUISVILLE GAS AND ELECTRIC COMPANY', defined: 'Shipper', side: 'customer' },
      ],
    });
    const named = await quote({ ceilingUsd: 50, party: 'shipper' });
    expect(named.body.parties).toMatchObject({
      us: { name: 'LOUISVILLE GAS AND ELECTRIC COMPANY', term: 'Shipper' },
      them: { name: 'TENNESSEE GAS PIPELINE COMPANY', term: 'Transporter' },
      source: 'submitted',
    });
    const refused = await quote({ ceilingUsd: 50, party: 'Franchisee' });
    expect(refused.status).toBe(400);
    expect(String(refused.body.message)).toContain(
      "the 'party' option names 'Franchisee', a party this contract does not have: it names Transporter (TENNESSEE GAS PIPELINE COMPANY), Shipper (LOUISVILLE GAS AND ELECTRIC COMPANY)",
    );
    expect(ddb.calls()).toHaveLength(0);
  });

  it('by default prices only the calls the relevance screen keeps and counts the others; fullPanel prices them all', async () => {
    const full = await quote({ ceilingUsd: 50, fullPanel: true });
    const r = await quote({ ceilingUsd: 50 });
    expect((await quote({ ceilingUsd: 50, fullPanel: false })).body).toEqual(r.body);
    const { parsed } = await intakeQuote(undefined);
    const screen = shippedScreen()?.screenDocument(parsed.clauses, ANALYSTS);
    expect(screen?.calls).toBeGreaterThan(0);
    expect(full.body).toMatchObject({
      calls: parsed.clauses.length * 11,
      callsScreened: 0,
      options: { fullPanel: true },
    });
    expect(r.body).toMatchObject({
      calls: parsed.clauses.length * 11 - (screen?.calls ?? 0),
      callsScreened: screen?.calls,
    });
    expect(r.body.options).not.toHaveProperty('fullPanel');
    const q = (b: Record<string, unknown>) =>
      b.quote as { expectedMicros: number; screened?: { calls: number; expectedMicros: number } };
    expect(q(r.body).screened?.calls).toBe(screen?.calls);
    expect(q(r.body).expectedMicros + (q(r.body).screened?.expectedMicros ?? 0)).toBe(
      q(full.body).expectedMicros,
    );
  });

  it('says intake would refuse a ceiling below the expected cost, unless allowPartial', async () => {
    const all = await intakeQuote(undefined);
    const below = (all.quote.expectedMicros - 1) / 1e6;
    const refused = await quote({ ceilingUsd: below, fullPanel: true });
    expect(refused.status).toBe(200);
    expect(refused.body.wouldStart).toBe(false);
    expect((refused.body.options as { analysts: string[] }).analysts).toHaveLength(11);
    expect((refused.body.quote as { expectedMicros: number }).expectedMicros).toBe(all.quote.expectedMicros);
    expect((await quote({ ceilingUsd: below, allowPartial: true, fullPanel: true })).body.wouldStart).toBe(
      true,
    );
  });

  it('answers 400 for a bad body, 422 for a document intake would refuse, 413 over its own limit', async () => {
    const noDoc = await post('/quote', JSON.stringify({ filename: FILE }));
    expect(noDoc.status).toBe(400);
    expect(noDoc.body.issues).toEqual([expect.stringMatching(/^document: /)]);
    const notBase64 = await quote({ document: 'not base64!' });
    expect(notBase64.status).toBe(400);
    expect(notBase64.body.message).toMatch(/document: must be the document’s bytes in base64/);
    expect((await quote({ jobId: 'j-1' })).status).toBe(400);
    expect((await quote({ analysts: ['nobody'] })).body.message).toMatch(/unknown analyst id "nobody"/);
    const binary = await quote({
      filename: 'tool.exe',
      document: Buffer.from([0, 1, 2, 3]).toString('base64'),
    });
    expect(binary.status).toBe(422);
    expect(binary.body.error).toBe('UnprocessableDocumentError');
    expect(binary.body.message).toMatch(/^tool\.exe cannot be quoted \(/);
    const big = await quote({ document: Buffer.alloc(MAX_QUOTE_DOCUMENT_BYTES + 1, 'a').toString('base64') });
    expect(big.status).toBe(422);
    expect(big.body.message).toMatch(/at most 3145728 .*POST \/jobs/);
    // The reason rides in the answer: the reviewer app lets a file too large to quote go on to intake.
    expect(big.body.reason).toBe('too-large');
    expect(binary.body.reason).not.toBe('too-large');
    expect(binary.body.reason).toEqual(expect.any(String));
    const over = await post('/quote', ' '.repeat(MAX_QUOTE_BODY_BYTES + 1));
    expect(over.status).toBe(413);
    expect(ddb.calls()).toHaveLength(0);
    expect(s3mock.calls()).toHaveLength(0);
  });

  it('reads a document-sized body for the quote only: POST /jobs keeps its small limit', async () => {
    expect(maxBodyBytes('quote')).toBe(MAX_QUOTE_BODY_BYTES);
    expect(maxBodyBytes('submit')).toBe(MAX_BODY_BYTES);
    expect(maxBodyBytes(undefined)).toBe(MAX_BODY_BYTES);
    // The base64 of the largest document, and the options, fit; well under Lambda's 6 MB.
    expect(MAX_QUOTE_BODY_BYTES).toBeGreaterThanOrEqual((MAX_QUOTE_DOCUMENT_BYTES / 3) * 4);
    expect(MAX_QUOTE_BODY_BYTES).toBeLessThan(6_000_000 * 0.75);
    const padded = JSON.stringify({ filename: 'a.txt' }).replace('{', `{${' '.repeat(MAX_BODY_BYTES)}`);
    expect((await post('/jobs', padded)).status).toBe(413);
  });
});

describe('ceilingCovers, the rule intake and POST /quote both apply', () => {
  it('covers a quote up to and at the ceiling, and past it only when a partial review is allowed', () => {
    const quote = { expectedMicros: 500_000 };
    expect(ceilingCovers(quote, { ceilingMicros: 500_000, allowPartial: false })).toBe(true);
    expect(ceilingCovers(quote, { ceilingMicros: 499_999, allowPartial: false })).toBe(false);
    expect(ceilingCovers(quote, { ceilingMicros: 499_999, allowPartial: true })).toBe(true);
  });
});

describe('a decision body', () => {
  it('is read into the request decide takes: named findings, or every undecided one', () => {
    expect(readDecisionRequest({ findings: ['c-1/liability'], verdict: 'approve' })).toEqual({
      findings: ['c-1/liability'],
      verdict: 'approve',
    });
    expect(readDecisionRequest({ allUndecided: true, verdict: 'override', score: 1, note: 'ok' })).toEqual({
      findings: 'all-undecided',
      verdict: 'override',
      score: 1,
      note: 'ok',
    });
    const both = errorOf(() =>
      readDecisionRequest({ findings: ['a/b'], allUndecided: true, verdict: 'approve' }),
    );
    expect(isInvalidJobRequestError(both) && both.message).toMatch(
      /^invalid decision: give either 'findings'/,
    );
    const extra = errorOf(() => readDecisionRequest({ allUndecided: true, verdict: 'approve', by: 'me' }));
    expect(isInvalidJobRequestError(extra) && extra.issues).toEqual([expect.stringMatching(/by/)]);
  });

  it('is refused with 400 through the API before any job is read', async () => {
    const r = await post('/jobs/j-0123456789abcdef0123/decisions', JSON.stringify({ verdict: 'maybe' }));
    expect(r.status).toBe(400);
    expect(r.body.issues).toEqual(expect.arrayContaining([expect.stringMatching(/^verdict: /)]));
    expect(ddb.calls()).toHaveLength(0);
  });
});

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('the core job requests and the caller', () => {
  it('carry their context and are told apart by their guards', () => {
    const errors = [
      new InvalidJobRequestError('bad', ['a: b']),
      new JobNotFoundError('j-1'),
      new JobConflictError('ended', 'j-1', 'succeeded'),
      new DocumentUnreadableError('no', 'x.exe', 'unsupported-format'),
      new QuoteBusyError('x.txt'),
    ];
    expect(errors.map((e) => e.name)).toEqual([
      'InvalidJobRequestError',
      'JobNotFoundError',
      'JobConflictError',
      'DocumentUnreadableError',
      'QuoteBusyError',
    ]);
    expect(errors.every(isJobRequestError)).toBe(true);
    expect(
      errors.map((e) =>
        [
          isInvalidJobRequestError,
          isJobNotFoundError,
          isJobConflictError,
          isDocumentUnreadableError,
          isQuoteBusyError,
        ].findIndex((g) => g(e)),
      ),
    ).toEqual([0, 1, 2, 3, 4]);
    expect(isJobRequestError(new Error('x'))).toBe(false);
    expect(errors[1]?.message).toBe("no job with id 'j-1'");
    const api = new UnprocessableDocumentError('no', 'too-large');
    expect([api.statusCode, api.reason, isUnprocessableDocumentError(api)]).toEqual([422, 'too-large', true]);
    expect(isUnprocessableDocumentError(errors[3])).toBe(false);
  });

  it('answers 503, not a refusal of the document, when the service was too busy to read it in time', async () => {
    // Text whose splitting takes a while: the parse is still working when the wall clock runs out.
    const slow = { filename: 'slow.txt', document: Buffer.from('1. '.repeat(200_000)).toString('base64') };
    const deps = {
      defaultLane: 'realtime' as const,
      defaultCeilingMicros: 5_000_000,
      // A wall clock CPU time cannot outrun: the parse is stopped with its CPU time unused.
      quoteLimits: { ...QUOTE_DOCUMENT_LIMITS, parseCpuMs: 60_000, parseWallMs: 1 },
    };
    const busy = await refusals(() => quoteRequest(slow, deps)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isServiceBusyError(busy)).toBe(true);
    expect((busy as ServiceBusyError).statusCode).toBe(503);
    expect((busy as Error).message).toMatch(/could not be read in time because the service is busy/);
    const body = { filename: FILE, document: BYTES.toString('base64') };
    expect(
      (await quoteRequest(body, { ...deps, quoteLimits: QUOTE_DOCUMENT_LIMITS })).clauses,
    ).toBeGreaterThan(0);
  });

  it('names the caller as a job records it, and applies the access rule for the core', () => {
    const admin = 'arn:aws:iam::123456789012:role/Auditor';
    expect(actorOf(undefined, [admin])).toBeUndefined();
    const alice = actorOf({ arn: ALICE, userId: 'AIDAALICE' }, [admin]);
    expect(alice?.name).toBe(ALICE);
    expect(alice?.mayActOn({ owner: 'AWS:AIDAALICE' })).toBe(true);
    expect(alice?.mayActOn({ owner: 'arn:aws:iam::123456789012:user/bob' })).toBe(false);
    const carol = actorOf({ arn: 'arn:aws:sts::123456789012:assumed-role/Auditor/carol' }, [admin]);
    expect(carol?.mayActOn({ owner: ALICE })).toBe(true);
    const person = actorOf(
      {
        arn: 'arn:aws:sts::1:assumed-role/Auth/CognitoIdentityCredentials',
        cognitoIdentityId: 'us-east-1:ab',
      },
      [],
    );
    expect(person?.name).toBe('cognito-identity:us-east-1:ab');
  });
});

/**
 * report.docx from the real pipeline: a DOCX upload comes back as the same document, its
 * paragraphs' text unchanged, with one Word comment per clause at medium risk or above; a text
 * upload comes back as a generated document with the same count; and `clause-review report
 * --out` downloads it through the status API.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { DOMParser } from '@xmldom/xmldom';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../bin/client/api-client.js';
import { reportCommand } from '../../bin/commands/api-commands.js';
import type { Target } from '../../bin/commands/target.js';
import { reportDocx } from '../../lambdas/core/finalize/docx-output.js';
import { commented, paragraphTexts } from '../../lambdas/core/report-docx/index.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { startPipelineApi } from '../../localstack/runtime/local-api.js';
import { buildStyledDocx, styledParagraphs } from '../fixtures/documents/builders.js';
import { fixture, MEDIUM, startHarness } from '../helpers/pipeline.js';
import { seededRandom } from '../helpers/random.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const h = await startHarness('reportdocx');
const localApi = await startPipelineApi({
  awsEndpoint: h.stack.endpoint,
  db: h.pipeline.clients.db,
  resources: h.stack.resources,
});
const scratch = mkdtempSync(join(tmpdir(), 'clause-review-docx-'));
afterAll(async () => {
  await localApi.close();
  rmSync(scratch, { recursive: true, force: true });
});
const api = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS });
const target = async (): Promise<Target> => ({
  kind: 'local',
  name: 'local',
  region: LOCAL_REGION,
  api,
  resources: h.stack.resources,
  clients: { ...h.pipeline.clients, sns: h.stack.clients.sns },
  destroy: () => {},
});

async function object(key: string): Promise<Uint8Array> {
  const r = await h.pipeline.clients.s3.send(
    new GetObjectCommand({ Bucket: h.stack.resources.resultsBucket, Key: key }),
  );
  return (await r.Body?.transformToByteArray()) ?? new Uint8Array();
}

const part = (bytes: Uint8Array, name: string) => {
  const data = unzipSync(bytes)[name];
  if (!data) throw new Error(`report.docx has no part ${name}`);
  return new DOMParser().parseFromString(strFromU8(data), 'text/xml');
};

/** Runs a document through the pipeline; its report and report.docx. */
async function review(name: string, body: Uint8Array) {
  const jobId = await h.upload(name, body);
  const job = await h.waitForEnd(jobId, 120_000);
  expect(job.status).toBe('completed');
  expect(job.docxReportKey).toBe(`${h.stack.resources.resultsPrefix}${jobId}/report.docx`);
  const report = JSON.parse(strFromU8(await object(job.reportKey ?? ''))) as Report;
  return { jobId, report, docx: await object(job.docxReportKey ?? '') };
}

describe('report.docx', () => {
  it('puts a comment on each clause at medium or above into the uploaded DOCX, its text unchanged', async () => {
    const original = buildStyledDocx(
      styledParagraphs(fixture(MEDIUM).toString('utf8').split('\n'), seededRandom(3)),
    );
    const { report, docx } = await review('contract.docx', original);
    const risky = report.clauses.filter(commented);
    expect(risky.length).toBeGreaterThan(0);
    expect(paragraphTexts(part(docx, 'word/document.xml'))).toEqual(
      paragraphTexts(part(original, 'word/document.xml')),
    );
    expect(part(docx, 'word/comments.xml').getElementsByTagNameNS(W, 'comment').length).toBe(risky.length);
    expect(part(docx, 'word/document.xml').getElementsByTagNameNS(W, 'commentRangeStart').length).toBe(
      risky.length,
    );
  });

  it('generates a document of a text upload’s contract with the same comments, and the CLI downloads it', async () => {
    const { jobId, report, docx } = await review('contract.txt', fixture(MEDIUM));
    const risky = report.clauses.filter(commented);
    expect(risky.length).toBeGreaterThan(0);
    const stored = JSON.parse(strFromU8(await object(`work/${jobId}/document.json`))) as { text: string };
    expect(paragraphTexts(part(docx, 'word/document.xml'))).toEqual(
      stored.text.split('\n').filter((l) => l.trim() !== ''),
    );
    expect(part(docx, 'word/comments.xml').getElementsByTagNameNS(W, 'comment').length).toBe(risky.length);

    const lines: string[] = [];
    const io = { tty: false, out: (l: string) => lines.push(l), err: () => {} };
    expect(await reportCommand([jobId, '--out', scratch], io, target)).toBe(0);
    const path = lines.find((l) => l.endsWith('report.docx'));
    expect(path).toBe(join(scratch, jobId, 'report.docx'));
    expect(Buffer.from(readFileSync(path ?? '')).equals(Buffer.from(docx))).toBe(true);

    // A DOCX upload gone by the time finalize runs (deleted, expired) still gets its comments,
    // on a document generated from the text, and finalize is told why.
    const gone = await reportDocx(
      h.pipeline.clients.s3,
      {
        bucket: h.stack.resources.intakeBucket,
        key: `${h.stack.resources.intakePrefix}gone.docx`,
        format: 'docx',
      },
      { text: stored.text, format: 'docx' },
      report,
    );
    expect(gone.outcome).toMatchObject({ source: 'generated', comments: risky.length });
    expect(gone.outcome.fallback).toMatch(/key does not exist|NoSuchKey/i);
  });
});

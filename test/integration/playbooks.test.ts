/**
 * Playbooks as data of the stack, on moto: stored versioned in the state table, listed and read
 * through the status API by anyone signed, put by administrators only, named by a submission or
 * an upload and recorded on the job and in its report.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, send, uploadDocument } from '../../bin/client/api-client.js';
import { isCliError } from '../../bin/commands/cli-error.js';
import { playbookCommand } from '../../bin/commands/playbook-commands.js';
import { submitCommand } from '../../bin/commands/submit-command.js';
import type { JobView } from '../../lambdas/api/jobs-api.js';
import {
  isPlaybookCorruptError,
  isPlaybookNotFoundError,
  PlaybookStore,
  parsePlaybook,
  SHIPPED_BY,
  shippedPlaybooks,
} from '../../lambdas/core/playbooks/index.js';
import type { Report } from '../../lambdas/core/report-types.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { PLAYBOOK_LIST_PK, playbookPk, playbookVersionSk } from '../../lambdas/core/state/keys.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { localCallerArn, startPipelineApi } from '../../localstack/runtime/local-api.js';
import { apiRefusal, capture, localTarget } from '../helpers/cli-target.js';
import { fixture, SMALL, startHarness } from '../helpers/pipeline.js';

const ADMIN = { accessKeyId: 'AKIDPLAYBOOKADMIN', secretAccessKey: 'admin-secret' };
const REVIEWER = { accessKeyId: 'AKIDPLAYBOOKREVIEWER', secretAccessKey: 'reviewer-secret' };
const DEFAULTS = join(import.meta.dirname, '../../lambdas/core/playbooks/defaults');

const h = await startHarness('playbooks');
const localApi = await startPipelineApi({
  awsEndpoint: h.stack.endpoint,
  db: h.pipeline.clients.db,
  resources: h.stack.resources,
  credentials: Object.fromEntries([ADMIN, REVIEWER].map((c) => [c.accessKeyId, c.secretAccessKey])),
  administrators: [localCallerArn(ADMIN.accessKeyId)],
});
const scratch = mkdtempSync(join(tmpdir(), 'clause-review-playbooks-'));
afterAll(async () => {
  await localApi.close();
  rmSync(scratch, { recursive: true, force: true });
});
const admin = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: ADMIN });
const reviewer = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: REVIEWER });
const [SHIPPED_DEFAULT, SHIPPED_NDA] = shippedPlaybooks();
/** The shipped default with another title: new content for the same name. */
const EDITED = readFileSync(join(DEFAULTS, 'default.yaml'), 'utf8').replace(
  'title: Customer positions for services, supply and licence agreements',
  'title: Our customer positions',
);

const errorOf = apiRefusal;

/**
 * A job's end, once an administrator who does not own it has approved what its review holds: a
 * playbook's missing required clause escalates, and waits for its approvers whatever the gate.
 */
async function endApproved(jobId: string): Promise<Job> {
  const ended = (j: Job) => Boolean(j.finalizedAt) || j.status === 'rejected';
  const job = await h.until(jobId, (j) => ended(j) || j.status === 'awaiting_review', 90_000);
  if (!ended(job)) await admin.decide(jobId, { allUndecided: true, verdict: 'approve' });
  return h.waitForEnd(jobId);
}

async function until(id: string, done: (v: JobView) => boolean, timeoutMs = 90_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await reviewer.status(id);
    if (done(view)) return view;
    if (Date.now() > deadline) throw new Error(`job ${id} never got there: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the stack starts with the shipped playbooks', () => {
  it('lists default and nda as version 1, put by the project, to anyone signed', async () => {
    const { playbooks } = await reviewer.playbooks();
    expect(playbooks.map((p) => [p.name, p.version, p.versions, p.createdBy])).toEqual([
      ['default', 1, 1, SHIPPED_BY],
      ['nda', 1, 1, SHIPPED_BY],
    ]);
    expect(playbooks[0]?.sha256).toBe(SHIPPED_DEFAULT?.sha256);
    expect(playbooks[1]).toMatchObject({
      party: 'mutual',
      contractTypes: ['nda'],
      title: SHIPPED_NDA?.playbook.title,
    });
  });

  it('shows a version with its content, and refuses a name or version the stack does not hold', async () => {
    const nda = await reviewer.playbook('nda@1');
    expect(nda.playbook).toEqual(SHIPPED_NDA?.playbook);
    expect(nda.versions.map((v) => v.version)).toEqual([1]);
    const unknown = await errorOf(reviewer.playbook('msa'));
    expect(unknown.status).toBe(404);
    expect(unknown.message).toBe(
      "no playbook named 'msa'; the stack has default, nda (clause-review playbook list)",
    );
    const version = await errorOf(reviewer.playbook('nda@7'));
    expect(version.status).toBe(404);
    expect(version.message).toBe("playbook 'nda' has no version 7; its versions are 1 to 1");
    const bad = await errorOf(reviewer.playbook('NDA@x'));
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/'NDA@x' does not name a playbook/);
  });
});

describe('an administrator puts a playbook', () => {
  it('adds new content as the next version, keeps every earlier one, and adds nothing for the same content', async () => {
    const put = await admin.putPlaybook({ source: EDITED, filename: 'default.yaml' });
    expect(put.created).toBe(true);
    expect(put.version).toMatchObject({
      name: 'default',
      version: 2,
      title: 'Our customer positions',
      createdBy: localCallerArn(ADMIN.accessKeyId),
      sha256: parsePlaybook(EDITED).sha256,
    });
    const again = await admin.putPlaybook({ source: EDITED });
    expect(again).toEqual({ created: false, version: put.version });

    const latest = await reviewer.playbook('default');
    expect([latest.version, latest.title]).toEqual([2, 'Our customer positions']);
    expect(latest.versions.map((v) => [v.version, v.sha256])).toEqual([
      [1, SHIPPED_DEFAULT?.sha256],
      [2, put.version.sha256],
    ]);
    const first = await reviewer.playbook('default@1');
    expect(first.playbook).toEqual(SHIPPED_DEFAULT?.playbook);
    expect((await reviewer.playbooks()).playbooks.find((p) => p.name === 'default')?.versions).toBe(2);
  });

  it('refuses a reviewer with 403, and a file that is not a playbook with its lines', async () => {
    const refused = await errorOf(reviewer.putPlaybook({ source: EDITED }));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'NotAdministratorError' });
    expect(refused.message).toMatch(/only an administrator of this stack may put a playbook/);
    expect((await reviewer.playbook('default')).version).toBe(2);

    const invalid = await errorOf(
      admin.putPlaybook({
        source: EDITED.replace('category: liability\n', 'category: liabilty\n'),
        filename: 'x.yaml',
      }),
    );
    expect(invalid.status).toBe(400);
    const issues = (invalid.body as { issues: string[] }).issues;
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(
      /^line \d+, column 15: positions\[\d+\]\.category: unknown risk category "liabilty"/,
    );
    expect(invalid.message).toMatch(/^x\.yaml is not a valid playbook/);
  });

  it('never overwrites a version when two puts of one name race', async () => {
    const store = new PlaybookStore(h.pipeline.clients.db, h.stack.resources.tableName);
    const base = readFileSync(join(DEFAULTS, 'nda.yaml'), 'utf8');
    const [a, b] = await Promise.all(
      ['first', 'second'].map((word) =>
        store.put(
          parsePlaybook(base.replace('title: Mutual non-disclosure agreements', `title: NDAs, ${word}`)),
          'test',
        ),
      ),
    );
    expect([a?.created, b?.created]).toEqual([true, true]);
    expect([a?.version.version, b?.version.version].sort()).toEqual([2, 3]);
    const versions = await store.versions('nda');
    expect(versions.map((v) => v.sha256)).toEqual([
      SHIPPED_NDA?.sha256,
      ...[a, b]
        .sort((x, y) => (x?.version.version ?? 0) - (y?.version.version ?? 0))
        .map((o) => o?.version.sha256),
    ]);
    const list = await h.pipeline.clients.db.send(
      new GetCommand({ TableName: h.stack.resources.tableName, Key: { pk: PLAYBOOK_LIST_PK, sk: 'nda' } }),
    );
    expect(list.Item?.version).toBe(3);
  });

  it('refuses to hand out a stored version whose content no longer matches its hash', async () => {
    const store = new PlaybookStore(h.pipeline.clients.db, h.stack.resources.tableName);
    const { version } = await store.put(
      parsePlaybook(EDITED.replace('name: default', 'name: tampered')),
      'test',
    );
    await h.pipeline.clients.db.send(
      new UpdateCommand({
        TableName: h.stack.resources.tableName,
        Key: { pk: playbookPk('tampered'), sk: playbookVersionSk(version.version) },
        UpdateExpression: 'SET content = :c',
        ExpressionAttributeValues: {
          ':c': parsePlaybook(
            EDITED.replace('name: default', 'name: tampered').replace('Our customer', 'Their'),
          ).canonical,
        },
      }),
    );
    const caught = await store.get({ name: 'tampered' }).catch((error: unknown) => error);
    expect(isPlaybookCorruptError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/tampered@1 does not match its recorded hash/);
    const missing = await store.get({ name: 'tampered', version: 2 }).catch((error: unknown) => error);
    expect(isPlaybookNotFoundError(missing)).toBe(true);
  });
});

describe('a job records its playbook', () => {
  it('a submission pins the version, the job records name, version and hash, and the report says so', async () => {
    const submission = await reviewer.submit({
      filename: SMALL,
      analysts: ['term-lifecycle'],
      playbook: 'default',
    });
    const latest = await reviewer.playbook('default');
    const recorded = { name: 'default', version: latest.version, sha256: latest.sha256, title: latest.title };
    expect(submission.options.playbook).toEqual(recorded);
    expect(submission.upload.fields['x-amz-meta-playbook']).toBe(`default@${latest.version}`);
    await uploadDocument(submission, fixture(SMALL));
    // The hosting agreement has no limitation of liability: the playbook's escalation waits for
    // its approvers even with the gate at none, and an administrator who does not own the job decides it.
    const held = await until(submission.submissionId, (v) => v.status === 'awaiting_review');
    expect(held.review?.approverGroups).toContain('legal-approvers');
    await admin.decide(held.jobId, { allUndecided: true, verdict: 'approve' });
    const ended = await until(submission.submissionId, (v) => v.finished);
    expect(ended.status).toBe('completed');
    expect(ended.playbook).toEqual(recorded);
    const links = await reviewer.report(ended.jobId);
    const report = (await send(new URL(links.json.url), 'GET', {})).body as Report;
    expect(report.job.playbook).toEqual(recorded);
    const html = (await send(new URL(links.html.url), 'GET', {})).text;
    expect(html).toContain(`<code>default@${latest.version}</code>`);
  });

  it('a submission or a quote naming a playbook the stack does not hold is refused', async () => {
    const refused = await errorOf(reviewer.submit({ filename: SMALL, playbook: 'msa' }));
    expect(refused.status).toBe(400);
    expect(refused.message).toBe(
      "invalid submission: playbook: no playbook named 'msa'; the stack has default, nda, tampered (clause-review playbook list)",
    );
    const version = await errorOf(reviewer.submit({ filename: SMALL, playbook: 'nda@99' }));
    expect(version.message).toMatch(/playbook 'nda' has no version 99/);
    const quote = await errorOf(
      reviewer.quote({ filename: SMALL, playbook: 'msa', document: fixture(SMALL).toString('base64') }),
    );
    expect(quote.status).toBe(400);
    expect(quote.message).toMatch(/^invalid quote request: playbook: no playbook named 'msa'/);
  });

  it('an upload naming a playbook without a version gets the latest, resolved by intake; an unknown one is rejected', async () => {
    const jobId = await h.upload(`pb-latest-${SMALL}`, fixture(SMALL), {
      playbook: 'nda',
      analysts: 'term-lifecycle',
    });
    const nda = await reviewer.playbook('nda');
    const job = await h.waitForEnd(jobId);
    expect(job.playbook).toEqual({ name: 'nda', version: nda.version, sha256: nda.sha256, title: nda.title });
    expect((await h.report(job)).job.playbook?.version).toBe(nda.version);

    const unknownId = await h.upload(`pb-unknown-${SMALL}`, fixture(SMALL), { playbook: 'nda@40' });
    const rejected = await h.waitForEnd(unknownId);
    expect(rejected.status).toBe('rejected');
    expect(rejected.rejection).toBe('unknown-playbook');
    expect(rejected.reason).toBe(
      "the 'playbook' option is not valid: playbook 'nda' has no version 40; its versions are 1 to 3",
    );
    const malformed = await h.waitForEnd(
      await h.upload(`pb-bad-${SMALL}`, fixture(SMALL), { playbook: 'N D A' }),
    );
    expect(malformed.rejection).toBe('invalid-options');
    expect(malformed.reason).toMatch(/^the 'playbook' option is not valid: 'N D A' does not name a playbook/);
  });
});

describe('intake takes the contract type and asks only the analysts the playbook gives something to judge', () => {
  it('leaves out an analyst with no position, records who and why, quotes the calls saved and accounts for them', async () => {
    // Said to be an NDA: read as what it is, a hosting agreement, the NDA playbook would not cover it.
    const jobId = await h.upload(`pb-panel-${SMALL}`, fixture(SMALL), {
      playbook: 'nda',
      'contract-type': 'nda',
      analysts: 'term-lifecycle,commercial-terms',
    });
    const job = await endApproved(jobId);
    expect(job.status).toBe('completed');
    expect(job.contractType).toEqual({ type: 'nda', source: 'submitted', covered: true });
    expect(job.analysts).toEqual(['term-lifecycle']);
    expect(job.notAsked).toEqual([
      {
        analystId: 'commercial-terms',
        reason: 'playbook',
        detail: "playbook 'nda' has no position for a nda contract in payment-pricing",
      },
    ]);
    expect(job.callsPlanned).toBe(job.clauseCount);
    expect(job.quote?.notAsked?.calls).toBe(job.clauseCount);
    expect(job.quote?.notAsked?.expectedMicros).toBeGreaterThan(0);
    const report = await h.report(job);
    expect(report.coverage).toMatchObject({
      callsPlanned: job.clauseCount,
      callsDone: job.clauseCount,
      callsNotAsked: job.clauseCount,
      notAsked: [{ analystId: 'commercial-terms', reason: 'playbook', calls: job.clauseCount }],
    });
    expect(report.playbookReview?.contractType).toEqual(job.contractType);
    const view = await admin.status(jobId);
    expect(view.contractType).toEqual(job.contractType);
    expect(view.notAsked?.map((n) => n.analystId)).toEqual(['commercial-terms']);
    expect(view.cost.quote?.notAsked?.calls).toBe(job.clauseCount);

    const all = await endApproved(
      await h.upload(`pb-all-${SMALL}`, fixture(SMALL), {
        playbook: 'nda',
        analysts: 'term-lifecycle,commercial-terms',
        'all-analysts': 'true',
      }),
    );
    expect(all.contractType).toMatchObject({
      type: 'hosting',
      source: 'detected',
      covered: false,
      covers: ['nda'],
    });
    expect(all.analysts).toEqual(['term-lifecycle', 'commercial-terms']);
    expect(all.notAsked).toBeUndefined();
    expect(all.callsPlanned).toBe(2 * all.clauseCount);
  });

  it('refuses a contract type the playbook does not list, naming the ones it does', async () => {
    const rejected = await h.waitForEnd(
      await h.upload(`pb-type-${SMALL}`, fixture(SMALL), { playbook: 'default', 'contract-type': 'lease' }),
    );
    expect(rejected.status).toBe('rejected');
    expect(rejected.rejection).toBe('invalid-options');
    expect(rejected.reason).toBe(
      "the 'contract-type' option is not valid: playbook 'default' applies to services, supply, licence; got 'lease'",
    );
    const refused = await errorOf(
      reviewer.submit({ filename: SMALL, playbook: 'default', contractType: 'lease' }),
    );
    expect(refused.status).toBe(400);
    expect(refused.message).toContain("playbook 'default' applies to services, supply, licence; got 'lease'");
    const typed = await reviewer.submit({ filename: SMALL, playbook: 'default', contractType: 'supply' });
    expect(typed.upload.fields['x-amz-meta-contract-type']).toBe('supply');
    expect(typed.options.contractType).toBe('supply');
  });
});

/** The CLI's target: the local API, signed with one caller's key. */
const targetOf = (credentials: typeof ADMIN) =>
  localTarget(h, new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials }));

async function cliErrorOf(run: Promise<unknown>): Promise<Error> {
  const caught = await run.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!isCliError(caught)) throw new Error(`expected a CliError, got ${String(caught)}`);
  return caught;
}

describe('clause-review playbook', () => {
  it('validate checks files here, each problem with its line, and exits 1 when any is invalid', async () => {
    const good = join(scratch, 'good.yaml');
    const bad = join(scratch, 'bad.yaml');
    writeFileSync(good, EDITED);
    writeFileSync(bad, EDITED.replace('threshold: 60\n', 'threshold: sixty\n'));
    const thresholdLine = EDITED.split('\n').findIndex((l) => l.endsWith('threshold: 60')) + 1;
    const io = capture();
    expect(await playbookCommand(['validate', good], io)).toBe(0);
    expect(io.stdout).toEqual([
      `ok ${good}: default: "Our customer positions", customer side of services/supply/licence, 27 positions, ` +
        `2 required clauses, sha256 ${parsePlaybook(EDITED).sha256}`,
    ]);
    const both = capture();
    expect(await playbookCommand(['validate', good, bad], both)).toBe(1);
    expect(both.stdout).toHaveLength(1);
    expect(both.stderr).toEqual([
      'bad.yaml is not a valid playbook (1 problem):\n' +
        `  bad.yaml:${thresholdLine}:20: positions[0].fallbacks[0].threshold: must be a number; got "sixty"`,
    ]);
  });

  it('put, list and show through the API; a reviewer may not put', async () => {
    const file = join(scratch, 'nda.yaml');
    writeFileSync(
      file,
      readFileSync(join(DEFAULTS, 'nda.yaml'), 'utf8').replace('importance: low', 'importance: medium'),
    );
    const put = capture();
    expect(await playbookCommand(['put', file, '--local'], put, targetOf(ADMIN))).toBe(0);
    const [, version] = /^put nda@(\d+) \(sha256 [0-9a-f]{64}\)$/.exec(put.stdout[0] ?? '') ?? [];
    expect(version, put.stdout.join('\n')).toBeDefined();
    const again = capture();
    expect(await playbookCommand(['put', file, '--local'], again, targetOf(ADMIN))).toBe(0);
    expect(again.stdout[0]).toMatch(new RegExp(`^unchanged: nda@${version} already has this content`));
    const refused = await cliErrorOf(
      playbookCommand(['put', file, '--local'], capture(), targetOf(REVIEWER)),
    );
    expect(refused.message).toMatch(/^only an administrator of this stack may put a playbook/);

    const list = capture();
    expect(await playbookCommand(['list', '--local'], list, targetOf(REVIEWER))).toBe(0);
    expect(list.stdout.find((l) => l.startsWith('nda@'))).toMatch(
      new RegExp(
        `^nda@${version}\\s+mutual\\s+nda\\s+10 positions\\s+${version} version\\(s\\)\\s+Mutual non-disclosure agreements$`,
      ),
    );

    // show prints YAML that parses back to the same content: the version's hash.
    const show = capture();
    expect(await playbookCommand(['show', 'default@1', '--local'], show, targetOf(REVIEWER))).toBe(0);
    const text = show.stdout.join('\n');
    expect(text.split('\n')[0]).toBe(`# default@1  sha256 ${SHIPPED_DEFAULT?.sha256}`);
    expect(text).toMatch(
      /^# {3}@1 {2}\S+ {2}[0-9a-f]{12} {2}by clause-review \(shipped with the project\)$/m,
    );
    expect(parsePlaybook(text).sha256).toBe(SHIPPED_DEFAULT?.sha256);
    const unknown = await cliErrorOf(
      playbookCommand(['show', 'msa', '--local'], capture(), targetOf(REVIEWER)),
    );
    expect(unknown.message).toMatch(/^no playbook named 'msa'; the stack has default, nda/);
  });

  it('submit --playbook names the version the job will be reviewed against', async () => {
    const file = join(scratch, SMALL);
    writeFileSync(file, fixture(SMALL));
    const io = capture();
    expect(
      await submitCommand(
        [file, '--analysts', 'term-lifecycle', '--playbook', 'nda@1', '--local'],
        io,
        targetOf(REVIEWER),
      ),
    ).toBe(0);
    expect(io.stderr.join('\n')).toMatch(/1 analysts, playbook nda@1\)/);
    const refused = await cliErrorOf(
      submitCommand([file, '--playbook', 'msa', '--local'], capture(), targetOf(REVIEWER)),
    );
    expect(refused.message).toMatch(/^invalid submission: playbook: no playbook named 'msa'/);
  });
});

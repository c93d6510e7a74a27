/**
 * Escalations and redline decisions on the local ground, with people signed in through the
 * local user pool as the app signs them in, each calling the status API with the identity
 * pool's credentials: a not-acceptable rung holds the job for its approver group; the job's
 * owner, and a member of another group, get 404 deciding it; a member of the group sees the job
 * (without acting on it), finds it among the jobs waiting for their group, and decides it, and
 * the trail names them by `sub` and verified email.
 * The owner accepts, rejects and edits proposed redlines (through the CLI too), and the report
 * carries both trails once the review closes, when the approvers no longer see the job.
 *
 * The review against a playbook (rungs, escalations, redlines) is put into the held review
 * where finalize puts it (`seedPlaybookHolds`, made by the gate's own `playbookHolds`), on a
 * job the real pipeline holds with a `high` gate, in place of the analysts' own: this contract's
 * review escalates to the legal approvers only, and the test needs one escalation for each of
 * two groups. The analysts' own positions and redlines on a held job are decided in
 * redline-decisions.test.ts.
 */
import {
  AdminAddUserToGroupCommand,
  AdminGetUserCommand,
  AdminRemoveUserFromGroupCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadDocument } from '../../bin/client/api-client.js';
import { findingsCommand, redlineCommand } from '../../bin/commands/hold-commands.js';
import { jobsCommand } from '../../bin/commands/live-commands.js';
import type { Target } from '../../bin/commands/target.js';
import type { Clause } from '../../lambdas/core/clause.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { applyEdits } from '../../lambdas/text/redline-edits.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { apiRefusal, capture } from '../helpers/cli-target.js';
import { fixture } from '../helpers/pipeline.js';
import { type Seeded, seedPlaybookHolds } from '../helpers/playbook-positions.js';
import { type Person, type SignInStack, signedInPerson, startSignInStack } from '../helpers/signed-in.js';

/** A consulting agreement on which the stand-in's learned analysts rate clauses high or critical. */
const HELD = 'KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT.txt';

let stack: SignInStack;
beforeAll(async () => {
  stack = await startSignInStack('escalate');
}, 120_000);
afterAll(() => stack?.stop());

const person = (email: string, groups: string[] = []) => signedInPerson(stack, email, groups);
const subOf = async (p: Person) =>
  (
    await stack.idp.send(new AdminGetUserCommand({ UserPoolId: stack.signIn.userPoolId, Username: p.email }))
  ).UserAttributes?.find((a) => a.Name === 'sub')?.Value;

/** The CLI's target, signed with `p`'s credentials. */
const targetOf = (p: Person) => async (): Promise<Target> => ({
  kind: 'local',
  name: 'local',
  region: LOCAL_REGION,
  api: p.api,
  resources: stack.resources,
  clients: { ...stack.pipeline.clients, sns: stack.clients.sns },
  destroy: () => {},
});

/** A job of `p`'s, reviewed against the default playbook, that a `high` gate holds. */
async function heldJobOf(p: Person): Promise<string> {
  const submission = await p.api.submit({
    filename: HELD,
    lane: 'realtime',
    ceilingUsd: 5,
    gate: 'high',
    playbook: 'default',
    analysts: ['liability-counsel', 'ip-counsel', 'term-lifecycle', 'risk-transfer'],
  });
  await uploadDocument(submission, fixture(HELD));
  for (const deadline = Date.now() + 180_000; ; ) {
    const view = await p.api.status(submission.submissionId);
    if (view.status === 'awaiting_review') return view.jobId;
    if (view.finished || Date.now() > deadline)
      throw new Error(`job never waited for review: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** The first clause at least `min` characters long after `after`, and a word of it to replace. */
function clauseWithWord(clauses: readonly Clause[], after: number, min = 120) {
  const clause = clauses.find((c) => c.index > after && c.text.length >= min && /\b[a-z]{6,}\b/.test(c.text));
  if (!clause) throw new Error('no clause long enough');
  const m = /\b[a-z]{6,}\b/.exec(clause.text) as RegExpExecArray;
  return { clause, at: m.index, word: m[0] };
}

/** Seeds a not-acceptable liability rung (legal) with a redline, and a fallback (commercial) with another. */
function seed(jobId: string): Promise<Seeded> {
  return seedPlaybookHolds({ ...stack.pipeline.clients, ...stack.resources }, jobId, (clauses) => {
    const a = clauseWithWord(clauses, -1);
    const b = clauseWithWord(clauses, a.clause.index);
    return new Map([
      [
        a.clause.id,
        [
          {
            topic: 'limitation-of-liability',
            category: 'liability' as const,
            rung: { rung: 'not-acceptable' as const },
            escalation: { group: 'legal-approvers', reason: 'not-acceptable' as const },
            redline: {
              edits: [{ start: a.at, end: a.at + a.word.length, insert: 'mutually' }],
              target: { rung: 'fallback' as const, fallback: 2 as const },
            },
          },
        ],
      ],
      [
        b.clause.id,
        [
          {
            topic: 'termination-for-convenience',
            category: 'termination' as const,
            rung: { rung: 'fallback' as const, fallback: 1 as const },
            escalation: { group: 'commercial-approvers', reason: 'fallback-approver' as const },
            redline: {
              edits: [{ start: b.at, end: b.at + b.word.length, insert: 'promptly' }],
              target: { rung: 'standard' as const },
            },
          },
        ],
      ],
    ]);
  });
}

describe('a job reviewed against a playbook with no gate', () => {
  it('still waits for the approvers of its escalations, holding nothing else', async () => {
    const owner = await person('nora@example.com');
    const submission = await owner.api.submit({
      filename: HELD,
      lane: 'realtime',
      ceilingUsd: 5,
      playbook: 'default',
      analysts: ['liability-counsel', 'ip-counsel', 'term-lifecycle', 'risk-transfer'],
    });
    await uploadDocument(submission, fixture(HELD));
    let view = await owner.api.status(submission.submissionId);
    for (const deadline = Date.now() + 180_000; view.status !== 'awaiting_review'; ) {
      if (view.finished || Date.now() > deadline) throw new Error(`never held: ${JSON.stringify(view)}`);
      await new Promise((r) => setTimeout(r, 300));
      view = await owner.api.status(submission.submissionId);
    }
    expect(view.review?.approverGroups).toEqual(['legal-approvers']);
    const findings = await owner.api.findings(view.jobId);
    expect(findings.gate).toBe('none');
    expect(findings.escalations.length).toBeGreaterThan(0);
    // Each waits for the group its position names, or the administrators where it names none.
    expect(
      new Set(findings.escalations.map((e) => e.escalation.group).filter((g) => g !== 'administrators')),
    ).toEqual(new Set(['legal-approvers']));
    // The gate governs risk findings and redlines: none of those wait.
    expect(findings.undecided).toBe(findings.escalations.length);
    // An administrator who did not submit it decides them, and the report is written.
    const ada = await person('abe@example.com', ['administrators']);
    const decided = await ada.api.decide(view.jobId, { allUndecided: true, verdict: 'approve' });
    expect(decided.reviewClosed).toBe(true);
  }, 240_000);
});

describe('an escalated finding', () => {
  let olga: Person;
  let lee: Person;
  let pat: Person;
  let jobId: string;
  let seeded: Seeded;

  beforeAll(async () => {
    [olga, lee, pat] = await Promise.all([
      person('olga@example.com'),
      person('lee@example.com', ['legal-approvers']),
      person('pat@example.com', ['commercial-approvers']),
    ]);
    jobId = await heldJobOf(olga);
    seeded = await seed(jobId);
  }, 240_000);

  it('holds the job for its approver group, and the job view and findings say which', async () => {
    const view = await olga.api.status(jobId);
    expect(view.status).toBe('awaiting_review');
    expect(view.review?.approverGroups).toEqual(['commercial-approvers', 'legal-approvers']);
    const findings = await olga.api.findings(jobId);
    const legal = findings.escalations.find((e) => e.escalation.group === 'legal-approvers');
    expect(legal).toMatchObject({
      id: `${seeded.escalations[0]?.clause?.id}/playbook/limitation-of-liability`,
      rung: { rung: 'not-acceptable' },
      escalation: { reason: 'not-acceptable' },
      // The owner is not in the group: not theirs to decide.
      mayDecide: false,
    });
    expect(findings.redlines.map((r) => [r.decision.status, r.mayDecide])).toEqual([
      ['proposed', true],
      ['proposed', true],
    ]);
    expect(findings.undecided).toBe(findings.findings.length + 4);
  });

  it("refuses the job's owner with the reason even in the group, and answers 404 to another group's member deciding it and to a stranger seeing the job", async () => {
    const legalId = seeded.escalations[0]?.id ?? '';
    const byOwner = await apiRefusal(olga.api.decide(jobId, { findings: [legalId], verdict: 'approve' }));
    expect(byOwner.status).toBe(403);
    expect(byOwner.body).toMatchObject({ error: 'OwnEscalationRefusedError' });
    expect(byOwner.message).toContain(`you submitted job ${jobId}`);
    expect(byOwner.message).toContain("for the 'legal-approvers' group to decide");
    // In the group herself, the owner is still refused: an escalation is someone else's to accept.
    const group = { UserPoolId: stack.signIn.userPoolId, Username: olga.email, GroupName: 'legal-approvers' };
    await stack.idp.send(new AdminAddUserToGroupCommand(group));
    try {
      const inGroup = await apiRefusal(olga.api.decide(jobId, { findings: [legalId], verdict: 'approve' }));
      expect(inGroup.status).toBe(403);
      expect(inGroup.body).toMatchObject({ error: 'OwnEscalationRefusedError' });
      const seen = await olga.api.findings(jobId);
      expect(seen.escalations.find((e) => e.id === legalId)?.mayDecide).toBe(false);
      // The view says why, so the reviewer app can: she submitted it.
      expect(seen.ownJob).toBe(true);
    } finally {
      await stack.idp.send(new AdminRemoveUserFromGroupCommand(group));
    }
    // Pat approves for commercial-approvers: he sees the job, and may not decide legal's finding.
    expect((await pat.api.status(jobId)).status).toBe('awaiting_review');
    expect(
      (await apiRefusal(pat.api.decide(jobId, { findings: [legalId], verdict: 'approve' }))).status,
    ).toBe(404);
    // Nor the owner's own findings and redlines, nor act on the job.
    const own = (await olga.api.findings(jobId)).findings[0]?.id ?? '';
    expect((await apiRefusal(pat.api.decide(jobId, { findings: [own], verdict: 'approve' }))).status).toBe(
      404,
    );
    expect(
      (
        await apiRefusal(
          pat.api.decideRedlines(jobId, { redlines: [seeded.redlines[0]?.id ?? ''], decision: 'accept' }),
        )
      ).status,
    ).toBe(404);
    expect((await apiRefusal(pat.api.cancel(jobId))).status).toBe(404);
    expect((await apiRefusal(pat.api.pause(jobId))).status).toBe(404);
    // Someone in no group sees nothing of the job.
    const stranger = await person('sam@example.com');
    expect((await apiRefusal(stranger.api.status(jobId))).status).toBe(404);
    expect((await apiRefusal(stranger.api.findings(jobId))).status).toBe(404);
    // An approver finds the jobs waiting for their group; nobody else is shown them.
    const waiting = await pat.api.jobs({ awaiting: 'approval' });
    expect(waiting.jobs.map((j) => [j.jobId, j.approverGroups])).toEqual([
      [jobId, ['commercial-approvers', 'legal-approvers']],
    ]);
    expect((await stranger.api.jobs({ awaiting: 'approval' })).jobs).toEqual([]);
    expect((await olga.api.jobs({ awaiting: 'approval' })).jobs).toEqual([]);
    // An administrator decides every escalation: every job awaiting review is theirs to see.
    const ada = await person('ada@example.com', ['administrators']);
    expect((await ada.api.jobs({ awaiting: 'approval' })).jobs.map((j) => j.jobId)).toContain(jobId);
    const listed = capture();
    expect(await jobsCommand(['--awaiting-approval'], listed, targetOf(pat))).toBe(0);
    expect(listed.stdout.join('\n')).toContain(jobId);
    // Approving everything undecided decides only what the caller may: pat's one escalation.
    const all = await pat.api.decide(jobId, {
      allUndecided: true,
      verdict: 'approve',
      note: 'commercial accepts 90 days',
    });
    expect(all.recorded.map((d) => d.findingId)).toEqual([seeded.escalations[1]?.id]);
    expect((await olga.api.status(jobId)).status).toBe('awaiting_review');
  });

  it('is decided by a member of its group, whom the trail names', async () => {
    const legalId = seeded.escalations[0]?.id ?? '';
    const seen = await lee.api.findings(jobId);
    expect(seen.escalations.find((e) => e.id === legalId)?.mayDecide).toBe(true);
    expect(seen.findings.every((f) => !f.mayDecide)).toBe(true);
    // An escalation is approved or rejected, never overridden with a score.
    const override = await apiRefusal(
      lee.api.decide(jobId, { findings: [legalId], verdict: 'override', score: 1 }),
    );
    expect(override.status).toBe(400);
    const r = await lee.api.decide(jobId, {
      findings: [legalId],
      verdict: 'approve',
      note: 'legal accepts the cap',
    });
    const sub = await subOf(lee);
    expect(r.recorded).toEqual([
      expect.objectContaining({
        findingId: legalId,
        verdict: 'approve',
        bySub: sub,
        byName: 'lee@example.com',
      }),
    ]);
    expect(r.recorded[0]?.by).toBe(`cognito-identity:${lee.identityId}`);
    const listed = (await olga.api.findings(jobId)).escalations.find((e) => e.id === legalId);
    expect(listed?.decision).toMatchObject({ verdict: 'approve', byName: 'lee@example.com', bySub: sub });
  });

  it("takes the owner's redline decisions: accept, a refused edit, an edit through the CLI, then the report carries both trails", async () => {
    const [first, second] = seeded.redlines;
    if (!first || !second) throw new Error('two redlines were seeded');
    // An edit must fit the clause: these cross its end, or change nothing.
    const past = await apiRefusal(
      olga.api.decideRedlines(jobId, {
        redlines: [first.id],
        decision: 'edit',
        edits: [{ start: 0, end: first.clause.text.length + 5, insert: 'x' }],
      }),
    );
    expect(past.status).toBe(400);
    expect(past.message).toContain(`runs past the clause's ${first.clause.text.length} characters`);
    expect(
      (
        await apiRefusal(
          olga.api.decideRedlines(jobId, { redlines: ['c9999/redline/nothing'], decision: 'accept' }),
        )
      ).status,
    ).toBe(400);
    const accepted = await olga.api.decideRedlines(jobId, { redlines: [first.id], decision: 'accept' });
    expect(accepted.recorded[0]).toMatchObject({
      redlineId: first.id,
      status: 'accepted',
      bySub: await subOf(olga),
    });
    // The CLI: the clause as it should read, and the edits are the words that differ.
    const wanted = applyEdits(second.clause.text, [
      { ...(second.edits[0] ?? { start: 0, end: 0 }), insert: 'quickly' },
    ]);
    const cli = capture();
    expect(
      await redlineCommand(
        ['edit', jobId, second.id, '--text', wanted, '--note', 'quickly, not promptly'],
        cli,
        targetOf(olga),
      ),
    ).toBe(0);
    expect(cli.stdout.join('\n')).toContain(`${second.id}  edited  by olga@example.com`);
    const listed = capture();
    expect(await findingsCommand([jobId, '--gated'], listed, targetOf(olga))).toBe(0);
    expect(listed.stdout.join('\n')).toContain(`{+quickly+}`);
    expect(listed.stdout.join('\n')).toContain("escalated to 'legal-approvers' (not-acceptable)");
    const view = await olga.api.findings(jobId);
    expect(view.redlines.find((r) => r.id === second.id)?.decision).toMatchObject({
      status: 'edited',
      text: wanted,
    });
    expect(view.undecided).toBe(view.findings.length);

    await olga.api.decide(jobId, { allUndecided: true, verdict: 'approve' });
    for (let i = 0; ; i++) {
      const status = await olga.api.status(jobId);
      if (status.reportReady) break;
      if (i > 600) throw new Error(`the report was never written: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Lee decided on legal's finding while the review was open; once it closed, the job is its
    // owner's again: not his to read, though the trail keeps his decision.
    expect((await apiRefusal(lee.api.report(jobId))).status).toBe(404);
    expect((await apiRefusal(lee.api.status(jobId))).status).toBe(404);
    const links = await olga.api.report(jobId);
    const report = (await (await fetch(links.json.url)).json()) as Report;
    expect(report.review?.outcome).toBe('decided');
    expect(report.review?.trail).toContainEqual(
      expect.objectContaining({
        findingId: seeded.escalations[0]?.id,
        verdict: 'approve',
        byName: 'lee@example.com',
      }),
    );
    expect(report.review?.trail).toContainEqual(
      expect.objectContaining({
        findingId: seeded.escalations[1]?.id,
        verdict: 'approve',
        byName: 'pat@example.com',
      }),
    );
    expect(report.review?.redlineTrail?.map((r) => [r.redlineId, r.status, r.byName])).toEqual([
      [first.id, 'accepted', 'olga@example.com'],
      [second.id, 'edited', 'olga@example.com'],
    ]);
    // Once the review is closed, nothing more is decided, and the job waits for nobody.
    expect((await lee.api.jobs({ awaiting: 'approval' })).jobs).toEqual([]);
    expect(
      (await apiRefusal(olga.api.decideRedlines(jobId, { allUndecided: true, decision: 'reject' }))).status,
    ).toBe(409);
  });
});

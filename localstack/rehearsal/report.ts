/** The deploy rehearsal's report as text: what was created, what LocalStack cannot create, the CLI, teardown. */
import type { RehearsalReport } from './rehearse.js';

/** True when every check passed, every CLI command exited 0 and every retained resource is still there. */
export function rehearsalPassed(report: RehearsalReport): boolean {
  return (
    report.checks.every((c) => c.ok) &&
    report.cli.every((c) => c.exitCode === 0) &&
    report.retained.every((r) => r.exists === undefined || r.exists === (r.policy === 'Retain'))
  );
}

/** The report, one line per fact. */
export function formatReport(report: RehearsalReport): string[] {
  const lines: string[] = [];
  const kept = Object.values(report.created).reduce((a, b) => a + b, 0);
  lines.push(
    `== stack '${report.stackName}' on LocalStack ${report.localStackVersion} (host mode): ${kept} of ${report.templateResources} template resources created ` +
      `(synth ${report.seconds.synth} s, deploy ${report.seconds.deploy} s, teardown ${report.seconds.teardown} s, total ${report.seconds.total} s)`,
  );
  lines.push('-- created, by type');
  for (const [type, n] of Object.entries(report.created).sort())
    lines.push(`   ${String(n).padStart(3)} ${type}`);
  lines.push(
    `-- not created: ${report.removed.length} resource(s) LocalStack cannot create, taken out of the template by name`,
  );
  const byReason = new Map<string, string[]>();
  for (const r of report.removed)
    byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), `${r.logicalId} (${r.type})`]);
  for (const [reason, ids] of byReason) {
    lines.push(`   ${reason}:`);
    for (const id of ids) lines.push(`     ${id}`);
  }
  lines.push(
    `-- ${report.replacements.length} reference(s) to them replaced by '${'rehearsal-not-created-<id>'}' placeholders, in:`,
  );
  const holders = new Map<string, string[]>();
  for (const r of report.replacements)
    holders.set(r.in, [...(holders.get(r.in) ?? []), `${r.how} ${r.target}`]);
  for (const [holder, refs] of holders) lines.push(`   ${holder}: ${[...new Set(refs)].join(', ')}`);
  lines.push('-- applied by the rehearsal in place of a removed custom resource');
  for (const a of report.applied) lines.push(`   ${a}`);
  lines.push(`-- assets: ${report.published.length} file asset(s) published`);
  for (const a of report.published) lines.push(`   ${a.name}: ${a.bytes} bytes → ${a.key}`);
  for (const a of report.notPublished) lines.push(`   NOT published: ${a.name}: ${a.reason}`);
  lines.push('-- checks against the template');
  for (const c of report.checks) lines.push(`   ${c.ok ? 'ok  ' : 'FAIL'} ${c.what}: ${c.detail}`);
  lines.push("-- the CLI reading the stack's CloudFormation outputs");
  for (const c of report.cli) {
    lines.push(`   $ ${c.command}   (exit ${c.exitCode})`);
    for (const l of c.output.split('\n')) lines.push(`     ${l}`);
  }
  lines.push('-- teardown (DeleteStack): what the stack keeps by design');
  for (const r of report.retained) {
    const state = r.exists === undefined ? 'not checked' : r.exists ? 'still there' : 'gone';
    lines.push(
      `   ${r.policy === 'Retain' ? 'kept   ' : 'deleted'} ${r.type} ${r.physicalId || r.logicalId}: ${state}`,
    );
  }
  lines.push(
    rehearsalPassed(report)
      ? '== rehearsal passed'
      : '== rehearsal FAILED (see FAIL lines and exit codes above)',
  );
  return lines;
}

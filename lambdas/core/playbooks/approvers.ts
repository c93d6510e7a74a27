/**
 * The Cognito groups a playbook names as approvers: a fallback's `approver`, a position's
 * `exceptionApprover`, a required clause's `approver`. A finding escalated to one of them is
 * decided by its members (or the stack's administrators), so the stack's user pool must have
 * each group: the stack creates the shipped playbooks' groups, an administrator any other.
 */
import type { Playbook } from './schema.js';
import { shippedPlaybooks } from './shipped.js';

/**
 * The approver groups a playbook names, sorted, each once.
 * @example approverGroups(playbook) // ['commercial-approvers', 'legal-approvers']
 */
export function approverGroups(playbook: Pick<Playbook, 'positions' | 'requiredClauses'>): string[] {
  const groups = new Set<string>();
  for (const p of playbook.positions) {
    for (const f of p.fallbacks) if (f.approver) groups.add(f.approver);
    if (p.exceptionApprover) groups.add(p.exceptionApprover);
  }
  for (const r of playbook.requiredClauses) if (r.approver) groups.add(r.approver);
  return [...groups].sort();
}

/** The approver groups the shipped playbooks name: the groups a stack's user pool is created with. */
export function shippedApproverGroups(): string[] {
  return [...new Set(shippedPlaybooks().flatMap((p) => approverGroups(p.playbook)))].sort();
}

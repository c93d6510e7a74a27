/**
 * Who decided, as the app shows it: the browser bundle takes only types from the rest of
 * lambdas/, so this is the app's copy of the rule report.html, report.docx and the CLI follow
 * (lambdas/core/holds/decider.ts): the name the user pool vouched for beside the person's `sub`,
 * or the `sub` (else the principal) alone.
 */
import type { DeciderFields } from '../core/holds/decider.js';

export function deciderText(d: DeciderFields): string {
  const id = d.bySub ?? d.by ?? '';
  return d.byName ? `${d.byName} (${id})` : id;
}

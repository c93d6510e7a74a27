/**
 * Where every planned call of a job ended, from its checkpoints and call ledger: each planned pair
 * of clause and analyst counted once, as answered, failed, not started (the ceiling, a cancel),
 * screened, or never run.
 */
import type { StoredDocument } from '../intake/intake.js';
import type { ReportFailedCall } from '../report-types.js';
import { isScreened } from '../screen/index.js';
import type { CallOutcome } from '../state/call-ledger.js';
import type { Checkpoint } from '../state/claims.js';

/**
 * Where every planned call of the job ended: answered, failed (with why), not started for the
 * ceiling or a cancel (the lists chunks record in one write), or not finished at all. Each
 * planned (clause, analyst) call is counted exactly once.
 */
export function classifyCalls(
  doc: Pick<StoredDocument, 'chunks' | 'screened'>,
  analysts: readonly string[],
  checkpoints: readonly Checkpoint[],
  ledger: readonly CallOutcome[],
): { done: number; skipped: number; cancelled: number; screened: number; failed: ReportFailedCall[] } {
  const entries = new Map(ledger.map((e) => [`${e.chunk}#${e.clauseId}#${e.analystId}`, e]));
  const unstarted = new Map<string, 'budget' | 'cancelled'>();
  const cancelledChunks = new Set<number>();
  const analyzed = new Map<number, Checkpoint>();
  for (const cp of checkpoints) {
    if (cp.status === 'cancelled') cancelledChunks.add(cp.chunk);
    if (cp.stage === 'analyze') analyzed.set(cp.chunk, cp);
    for (const c of cp.unstarted?.calls ?? [])
      unstarted.set(`${cp.chunk}#${c.clauseId}#${c.analystId}`, cp.unstarted?.reason ?? 'cancelled');
  }
  let done = 0;
  let skipped = 0;
  let cancelled = 0;
  let screened = 0;
  const failed: ReportFailedCall[] = [];
  for (const chunk of doc.chunks) {
    for (const clause of chunk.clauses) {
      for (const analystId of analysts) {
        if (isScreened(doc.screened, clause.id, analystId)) {
          screened++;
          continue;
        }
        const key = `${chunk.index}#${clause.id}#${analystId}`;
        const e = entries.get(key);
        if (e?.status === 'done') done++;
        else if (e?.status === 'failed') {
          failed.push({
            chunk: chunk.index,
            clauseId: clause.id,
            analystId,
            failureKind: e.failureKind ?? 'permanent',
            errorClass: e.errorClass ?? 'unknown',
            lastError: e.lastError ?? '',
            attempts: e.attempts,
          });
        } else if (unstarted.get(key) === 'budget') skipped++;
        else if (unstarted.has(key) || cancelledChunks.has(chunk.index)) cancelled++;
        else if (e) {
          // An entry that never ended (retryable, or an intent whose holder stopped).
          failed.push({
            chunk: chunk.index,
            clauseId: clause.id,
            analystId,
            failureKind: 'not-finished',
            errorClass: e.errorClass ?? analyzed.get(chunk.index)?.errorClass ?? 'unknown',
            lastError: e.lastError ?? unfinishedReason(analyzed.get(chunk.index)),
            attempts: e.attempts,
          });
        }
        // A call with no entry at all was never run: counted in `callsNotRun`, and its chunk
        // is named among the unfinished ones.
      }
    }
  }
  failed.sort(
    (a, b) =>
      a.chunk - b.chunk || a.clauseId.localeCompare(b.clauseId) || a.analystId.localeCompare(b.analystId),
  );
  return { done, skipped, cancelled, screened, failed };
}

/**
 * Why a call that never ended did not: its chunk's last error (a chunk that gave up names what
 * stopped it), else the state its chunk ended in with the call still open.
 */
function unfinishedReason(cp: Checkpoint | undefined): string {
  if (cp?.lastError) return `its chunk stopped: ${cp.lastError}`;
  return cp ? `its chunk ended ${cp.status} with this call still open` : 'its chunk was never analyzed';
}

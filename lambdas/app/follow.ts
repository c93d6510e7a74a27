/**
 * Following a job from a page, as the reviewer app's job view and the Word add-in's pane both
 * do: its clauses page by page as chunks consolidate (`GET /jobs/{id}/findings?after=`), and its
 * review gate's findings whenever they change.
 */
import type { AppApi, FindingsView, JobView, NegotiationChange, ReportClause } from './api.js';

/** A job's findings as they come, read from where the last read stopped. */
export class JobFollower {
  private cursor = '';
  private reviewKey = '';
  /** True once the job's findings have all been read. */
  ended = false;

  constructor(
    private readonly api: AppApi,
    readonly jobId: string,
  ) {}

  /**
   * Reads the findings consolidated since the last read, page after page, handing each page's
   * clauses to `each` and the other side's changes it completes to `changes`; `stopped` ends it
   * between pages.
   */
  async readFindings(
    each: (clauses: readonly ReportClause[]) => void | Promise<void>,
    stopped: () => boolean = () => false,
    changes?: (changes: readonly NegotiationChange[]) => void,
  ): Promise<void> {
    for (let more = true; more && !this.ended && !stopped(); ) {
      const page = await this.api.liveFindings(this.jobId, this.cursor);
      this.cursor = page.cursor;
      more = page.more;
      this.ended = page.ended;
      if (page.clauses.length > 0) await each(page.clauses);
      if (page.negotiation && changes) changes(page.negotiation);
    }
  }

  /** The review gate's findings when they changed since the last call; undefined otherwise. */
  async reviewChanged(view: JobView): Promise<FindingsView | undefined> {
    if (!view.review?.startedAt) return undefined;
    const findings = await this.api.findings(this.jobId);
    // Escalations and redlines are decided on the same view: their decisions change it too.
    const decided = [...findings.findings, ...(findings.escalations ?? [])].filter((f) => f.decision).length;
    const redlines = (findings.redlines ?? []).map((r) => r.decision.status).join();
    const key = `${findings.status}:${findings.undecided}:${decided}:${redlines}`;
    if (key === this.reviewKey) return undefined;
    this.reviewKey = key;
    return findings;
  }
}

/** How often a page reads a job that is still moving; twice this after a failed read. */
export const POLL_MS = 1500;

/** What a page does with each reading of the job it follows. */
export interface FollowSteps {
  /** Shows the job as this reading found it; first on every reading. */
  shown(view: JobView): void | Promise<void>;
  /** A page of clauses whose findings consolidated since the last read. */
  clauses(clauses: readonly ReportClause[]): void | Promise<void>;
  /** The other side's changes a page of findings completes. */
  changes(changes: readonly NegotiationChange[]): void;
  /** The review gate's findings when they changed; `again` reads the job at once (after a decision). */
  review(findings: FindingsView, again: () => void): void;
  /** What the page still reads once the job's findings are in; false while something is left. @default true */
  settled?(view: JobView): boolean | Promise<boolean>;
  /** A failed reading; false stops following (the person's sign-in ended, say). */
  failed(error: unknown): boolean;
}

/**
 * Follows a job from a page: reads it, shows it, reads its findings and review as they come, and
 * reads it again every {@link POLL_MS} until it has finished, its findings are all read and the
 * page is settled. `again` reads it at once (after a person acted on it); `stop` ends it (the
 * page was left).
 */
export function followJob(
  api: AppApi,
  jobId: string,
  steps: FollowSteps,
  pollMs = POLL_MS,
): { again: () => void; stop: () => void } {
  const follower = new JobFollower(api, jobId);
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const again = () => void tick();
  const tick = async () => {
    clearTimeout(timer);
    try {
      const view = await api.status(jobId);
      if (stopped) return;
      await steps.shown(view);
      if (view.status !== 'queued' && view.status !== 'intake')
        await follower.readFindings(steps.clauses, () => stopped, steps.changes);
      const findings = await follower.reviewChanged(view);
      if (findings) steps.review(findings, again);
      const settled = steps.settled ? await steps.settled(view) : true;
      if (!(view.finished && follower.ended && settled)) timer = setTimeout(again, pollMs);
    } catch (error) {
      if (steps.failed(error) && !stopped) timer = setTimeout(again, pollMs * 2);
    }
  };
  void tick();
  return {
    again,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

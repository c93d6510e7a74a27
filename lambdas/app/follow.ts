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
    const findings = await this.api.gatedFindings(this.jobId);
    // Escalations and redlines are decided on the same view: their decisions change it too.
    const decided = [...findings.findings, ...(findings.escalations ?? [])].filter((f) => f.decision).length;
    const redlines = (findings.redlines ?? []).map((r) => r.decision.status).join();
    const key = `${findings.status}:${findings.undecided}:${decided}:${redlines}`;
    if (key === this.reviewKey) return undefined;
    this.reviewKey = key;
    return findings;
  }
}

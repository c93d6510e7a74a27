import type { Job } from '../state/jobs.js';

/** A status read, and when it began (epoch ms). */
export interface GateReading {
  readonly job: Job | undefined;
  readonly checkedAt: number;
}

/**
 * The job-status read every call passes just before it is sent. A call starts only after a
 * read that began after the call asked, so a call never starts on a status older than its own
 * request: once a cancel or a reached ceiling is recorded, no call that asks later starts.
 * Calls that ask while a read is in flight share the next read, so under load there is about
 * one GetItem per round of calls rather than one per call, and no write.
 */
export class JobGate {
  private inFlight: Promise<GateReading> | undefined;
  private next: Promise<GateReading> | undefined;

  constructor(
    private readonly read: () => Promise<Job | undefined>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A reading that began after this call. */
  check(): Promise<GateReading> {
    if (!this.inFlight) return this.start();
    // The read in flight began before this request: wait for the one after it.
    this.next ??= this.inFlight.then(
      () => this.start(),
      () => this.start(),
    );
    return this.next;
  }

  private start(): Promise<GateReading> {
    this.next = undefined;
    const checkedAt = this.now();
    const reading = this.read().then((job) => ({ job, checkedAt }));
    this.inFlight = reading;
    const clear = () => {
      if (this.inFlight === reading) this.inFlight = undefined;
    };
    reading.then(clear, clear);
    return reading;
  }
}

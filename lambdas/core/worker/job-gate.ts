import type { Job } from '../state/job.js';

/** What a call start needs to know of its job. */
export type JobGateState = Pick<Job, 'status' | 'budgetExceededAt' | 'pausedAt'>;

/** A status read, and when it began (epoch ms). */
export interface GateReading {
  readonly job: JobGateState | undefined;
  readonly checkedAt: number;
}

/**
 * The job-status read every call passes just before it is sent. A call starts only after a
 * read that began after the call asked, so a call never starts on a status older than its own
 * request: once a cancel or a reached ceiling is recorded, no call that asks later starts.
 * Calls that ask while a read is in flight share the next read, so under load there is about
 * one GetItem per round of calls rather than one per call, and no write. One gate serves every
 * chunk of a job that a process runs at once ({@link JobGates}).
 *
 * While a call of the job is next in line for a model permit, the gate is watched: it reads
 * every `refreshMs`, so calls granted a permit find a reading that began after they asked and
 * only moments ago ({@link latest}), and spend their permit at the model instead of on a read.
 */
export class JobGate {
  private inFlight: Promise<GateReading> | undefined;
  /** When the read in flight began. */
  private inFlightAt = Number.NEGATIVE_INFINITY;
  private next: Promise<GateReading> | undefined;
  private last: GateReading | undefined;
  private watchers = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly read: () => Promise<JobGateState | undefined>,
    private readonly now: () => number = Date.now,
    private readonly refreshMs = 100,
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

  /**
   * The newest reading that has answered, if it began after `askedAt` (epoch ms; strictly, as a
   * read begun in the same millisecond may have begun before the ask).
   */
  latest(askedAt: number): GateReading | undefined {
    return this.last && this.last.checkedAt > askedAt ? this.last : undefined;
  }

  /**
   * A reading that began after `askedAt` and not before `notBefore` (epoch ms): the newest
   * answered one if it qualifies, else the read in flight if it does (a read that is already
   * out is nearer than the next one), else the next read ({@link check}).
   */
  since(askedAt: number, notBefore: number): Promise<GateReading> {
    const last = this.latest(askedAt);
    if (last && last.checkedAt >= notBefore) return Promise.resolve(last);
    if (this.inFlight && this.inFlightAt > askedAt && this.inFlightAt >= notBefore) return this.inFlight;
    return this.check();
  }

  /**
   * Keeps readings coming, one beginning every `refreshMs` (or as soon as the last answers,
   * if that takes longer), until every watcher has called the function it was given.
   */
  watch(): () => void {
    if (++this.watchers === 1 && !this.timer) this.refresh();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.watchers === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
    };
  }

  private refresh(): void {
    const began = this.now();
    const again = () => {
      if (this.watchers === 0) return;
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          if (this.watchers > 0) this.refresh();
        },
        Math.max(0, began + this.refreshMs - this.now()),
      );
      this.timer.unref?.();
    };
    this.check().then(again, again);
  }

  private start(): Promise<GateReading> {
    this.next = undefined;
    const checkedAt = this.now();
    const reading = this.read().then((job) => ({ job, checkedAt }));
    this.inFlight = reading;
    this.inFlightAt = checkedAt;
    const clear = () => {
      if (this.inFlight === reading) this.inFlight = undefined;
    };
    reading.then((r) => {
      if (!this.last || r.checkedAt >= this.last.checkedAt) this.last = r;
      clear();
    }, clear);
    return reading;
  }
}

/**
 * The gates of the jobs a process is working on, one per job, shared by its chunks so that
 * their call starts share reads. A gate is dropped when its last chunk lets go of it.
 */
export class JobGates {
  private readonly gates = new Map<string, { gate: JobGate; users: number }>();

  constructor(
    private readonly read: (jobId: string) => Promise<JobGateState | undefined>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The job's gate, and the function that lets go of it. */
  acquire(jobId: string): { gate: JobGate; release: () => void } {
    let entry = this.gates.get(jobId);
    if (!entry) {
      entry = { gate: new JobGate(() => this.read(jobId), this.now), users: 0 };
      this.gates.set(jobId, entry);
    }
    entry.users++;
    const held = entry;
    let released = false;
    return {
      gate: held.gate,
      release: () => {
        if (released) return;
        released = true;
        if (--held.users === 0 && this.gates.get(jobId) === held) this.gates.delete(jobId);
      },
    };
  }
}

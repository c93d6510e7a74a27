/**
 * The CPU time a worker thread has used, read from outside it: the parser thread runs code that
 * cannot report while it works, and its wall-clock time says as much about the machine's other
 * work as about the document. Node's `worker.cpuUsage()` (22.19 and later) reads the thread's own
 * counter; where it is missing, Linux's per-thread accounting (`/proc/self/task/<tid>/stat`,
 * https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html) does, given the thread's id,
 * which the thread writes into a shared cell when it starts ({@link recordThreadId}).
 */
import { readFileSync, readlinkSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';

/** Where a thread's CPU time is read: Node's own measure, or Linux's for the thread id. */
export type ThreadCpuSource = 'worker' | 'proc';

/** A cell the worker writes its Linux thread id into (0 until it has). */
export function threadIdCell(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** Run in the worker thread: writes its Linux thread id into `cell`, where Linux gives it. */
export function recordThreadId(cell: Int32Array | undefined): void {
  if (!cell) return;
  try {
    // `/proc/thread-self` is `<pid>/task/<tid>` for the thread that reads it.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (Number.isInteger(tid) && tid > 0) Atomics.store(cell, 0, tid);
  } catch {
    // Not Linux: only Node's own measure can serve.
  }
}

/** Clock ticks per second of `/proc` times: USER_HZ, 100 on Linux for x86-64 and arm64. */
const USER_HZ = 100;

/** utime + stime of a thread, in milliseconds, from its `/proc` stat line. */
export function procThreadCpuMs(stat: string): number {
  // Fields after the command name (in parentheses, which may itself hold spaces): state is the
  // 3rd field of the line, utime and stime the 14th and 15th.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(rest[11]) + Number(rest[12])) * 1000) / USER_HZ;
}

/** The source this Node offers, `proc` where `worker.cpuUsage()` is missing. */
export function defaultThreadCpuSource(worker: Worker): ThreadCpuSource {
  return typeof (worker as { cpuUsage?: unknown }).cpuUsage === 'function' ? 'worker' : 'proc';
}

/**
 * A reader of `worker`'s CPU time in milliseconds, or of undefined while it cannot be read (a
 * thread that has not written its id yet, or a platform with neither measure).
 */
export function threadCpuClock(
  worker: Worker,
  tidCell: Int32Array,
  source: ThreadCpuSource = defaultThreadCpuSource(worker),
): () => Promise<number | undefined> {
  if (source === 'worker') {
    return async () => {
      try {
        const usage = await worker.cpuUsage();
        return (usage.user + usage.system) / 1000;
      } catch {
        return undefined; // the thread has ended
      }
    };
  }
  return async () => {
    const tid = Atomics.load(tidCell, 0);
    if (tid === 0) return undefined;
    try {
      return procThreadCpuMs(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'));
    } catch {
      return undefined;
    }
  };
}

import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import {
  procThreadCpuMs,
  recordThreadId,
  threadCpuClock,
  threadIdCell,
} from '../../../lambdas/core/documents/thread-cpu.js';

/** A thread that writes its Linux id into the cell, then spins until it has used `ms` of CPU. */
function spinner(cell: Int32Array, ms: number): Worker {
  return new Worker(
    `const { workerData, parentPort } = require('node:worker_threads');
     const { readlinkSync } = require('node:fs');
     Atomics.store(workerData.cell, 0, Number(readlinkSync('/proc/thread-self').split('/').at(-1)));
     const start = process.threadCpuUsage();
     for (;;) {
       const used = process.threadCpuUsage(start);
       if ((used.user + used.system) / 1000 >= ${ms}) break;
     }
     parentPort.postMessage('spun');
     setInterval(() => {}, 1000);`,
    { eval: true, workerData: { cell } },
  );
}

let running: Worker | undefined;
afterEach(async () => {
  await running?.terminate();
  running = undefined;
});

describe('a thread CPU clock', () => {
  it("reads utime and stime from a thread's /proc stat line, whatever its name holds", () => {
    // pid (comm) state ppid … : utime and stime are the 14th and 15th fields, in ticks of 10 ms.
    const fields = ['S', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '37', '5', '0', '0'];
    expect(procThreadCpuMs(`4242 (node) ${fields.join(' ')}`)).toBe(420);
    expect(procThreadCpuMs(`4242 (a) (b c) ${fields.join(' ')}`)).toBe(420);
  });

  it('records the id of the thread it runs in (the main thread: the process id)', () => {
    const cell = threadIdCell();
    expect(Atomics.load(cell, 0)).toBe(0);
    recordThreadId(cell);
    expect(Atomics.load(cell, 0)).toBe(process.pid);
  });

  it("reads the same CPU time from Linux as Node's own measure of the thread", async () => {
    const cell = threadIdCell();
    const worker = spinner(cell, 300);
    running = worker;
    await new Promise((resolve) => worker.once('message', resolve));
    const fromNode = await threadCpuClock(worker, cell, 'worker')();
    const fromLinux = await threadCpuClock(worker, cell, 'proc')();
    expect(fromNode).toBeGreaterThanOrEqual(300);
    // Linux counts in ticks of 10 ms; the thread sleeps between the two readings.
    expect(Math.abs((fromLinux ?? 0) - (fromNode ?? 0))).toBeLessThanOrEqual(30);
  });

  it('reads nothing while the thread has not written its id', async () => {
    running = new Worker('setInterval(() => {}, 1000);', { eval: true });
    expect(await threadCpuClock(running, threadIdCell(), 'proc')()).toBeUndefined();
  });
});

import type { ChildProcess } from 'node:child_process';

/** What a server process printed while it started, and whether it has exited. */
export interface WatchedChild {
  /** Its last lines of output, for an error message. */
  output(): string;
  /** Its exit code once it has exited (null when a signal ended it), undefined while it runs. */
  exitCode(): number | null | undefined;
  /** Settles when it exits. */
  readonly gone: Promise<void>;
  /** Stops keeping its output (past start-up its request log is noise) without blocking its pipes. */
  quiet(): void;
}

/**
 * Watches a server process the launchers (moto, LocalStack) start: keeps its last `lines`
 * chunks of output for the error a failed start raises, and notes its exit.
 */
export function watchChild(child: ChildProcess, lines: number): WatchedChild {
  const kept: string[] = [];
  const keep = (chunk: Buffer) => {
    kept.push(chunk.toString());
    if (kept.length > lines) kept.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null | undefined;
  const gone = new Promise<void>((resolve) => {
    child.once('exit', (code) => {
      exited = code;
      resolve();
    });
  });
  return {
    output: () => kept.join(''),
    exitCode: () => exited,
    gone,
    quiet() {
      child.stdout?.off('data', keep);
      child.stderr?.off('data', keep);
      child.stdout?.resume();
      child.stderr?.resume();
    },
  };
}

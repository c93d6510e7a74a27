/**
 * Domain types shared by every stage of the pipeline. Offsets are UTF-16 code-unit indices
 * into the job's normalised text (`text.slice(start, end)`), the text the report quotes from.
 */

/** One clause of a contract. */
export interface Clause {
  /** Position in the document, 0-based. */
  readonly index: number;
  /** Stable id inside the job, `c0001` style (1-based, zero-padded to 4). */
  readonly id: string;
  /** The clause's number or letter as printed, e.g. `12.3`, `(b)`, `ARTICLE IV`; absent for plain paragraphs. */
  readonly label?: string;
  /** Heading of the section it belongs to, when one was found. */
  readonly heading?: string;
  /** Start offset (inclusive) into the normalised text. */
  readonly start: number;
  /** End offset (exclusive) into the normalised text. */
  readonly end: number;
  /** `normalisedText.slice(start, end)`. */
  readonly text: string;
}

/** A group of consecutive clauses processed as one unit of work (one SQS message). */
export interface Chunk {
  /** 0-based chunk number. */
  readonly index: number;
  readonly clauses: readonly Clause[];
}

/** How urgent a job is: realtime runs on Lambda, batch on Fargate. */
export type { Lane } from './lanes-and-limits.js';

import { z } from 'zod';
import { LANES } from '../lanes-and-limits.js';

const clause = z.object({
  index: z.number().int().min(0),
  // `c0007`: a clause of the contract; `b0007`: clause c0007 as it read before the other side's changes.
  id: z.string().regex(/^[cb]\d{4,}$/),
  label: z.string().optional(),
  heading: z.string().optional(),
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  text: z.string().min(1),
});

/** Body of a chunk message on a lane queue. Carries its clauses, so a worker needs no extra read. */
export const chunkMessageSchema = z.object({
  v: z.literal(1),
  jobId: z.string().min(1),
  chunk: z.number().int().min(0),
  lane: z.enum(LANES),
  clauses: z.array(clause).min(1),
  /** The contract's title, parties and definitions, shared by every call (absent on older messages). */
  context: z
    .object({
      title: z.string().optional(),
      parties: z.string().optional(),
      definitions: z.string(),
      more: z.string(),
    })
    .optional(),
  /** The relevance screen: per clause id, the analysts not asked about it (absent: all are asked). */
  screened: z.record(z.string(), z.array(z.string().min(1))).optional(),
});

/** A chunk message. */
export type ChunkMessage = z.output<typeof chunkMessageSchema>;

/** Body of a finalize message. */
export const finalizeMessageSchema = z.object({ v: z.literal(1), jobId: z.string().min(1) });

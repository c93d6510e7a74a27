/**
 * How much reading one document may take. An upload is at most `maxDocumentBytes` (10 MB by
 * default) on the wire, but a DOCX is a zip and a PDF holds compressed streams: a few hundred
 * kilobytes can inflate to gigabytes, and a page tree can repeat one page twenty thousand times.
 * Every limit here is checked before or while the work it bounds is done, never after.
 */
export interface DocumentLimits {
  /** Bytes the zip entries of a DOCX, or the compressed streams of a PDF, may inflate to in all. */
  readonly maxInflatedBytes: number;
  /** Pages of a PDF. */
  readonly maxPages: number;
  /** Characters of extracted text. */
  readonly maxChars: number;
  /** Clauses one job reviews. */
  readonly maxClauses: number;
  /**
   * CPU time the parser thread may spend on one document, in milliseconds, before the document is
   * refused as too complex. The parser's own work, however busy the machine is.
   */
  readonly parseCpuMs: number;
  /**
   * Wall-clock time one parse may take, in milliseconds. A parse stopped here had not used its
   * CPU time: the machine was busy, the document is not at fault, and the parse is tried again
   * later rather than refused.
   */
  readonly parseWallMs: number;
  /** Heap the parser may use, in MiB (the worker thread's old generation). */
  readonly parseHeapMb: number;
}

/**
 * The defaults: far above real contracts (the largest of the CUAD set is 290 KB of text, 762
 * clauses) and low enough that intake (1,024 MB, 60 s) refuses a hostile file in seconds.
 */
export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = {
  maxInflatedBytes: 64 * 1024 * 1024,
  maxPages: 2_000,
  maxChars: 10_000_000,
  maxClauses: 20_000,
  parseCpuMs: 7_000,
  // Intake's function runs 60 s; a parse stopped here leaves time to record why.
  parseWallMs: 30_000,
  parseHeapMb: 256,
};

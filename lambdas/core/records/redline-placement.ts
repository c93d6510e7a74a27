/** Why a redline could not be written into report.docx where its clause is. */
export type UnplacedReason =
  /** No clause of the report has the redline's clause id. */
  | 'unknown-clause'
  /** The clause's text in the report is not the document's text at the clause's offsets. */
  | 'clause-text'
  /** An edit's offsets are not whole numbers within the clause's text, start before end. */
  | 'offsets'
  /** An edit deletes text another edit already placed deletes, or inserts inside its deletion. */
  | 'overlap'
  /** The document does not hold the edit's text where the clause's text puts it. */
  | 'not-in-document'
  /** The edit would cross a table cell, a text box, a section break or a block around paragraphs. */
  | 'structure';

/** A redline not written, and why: listed in the writer's result so the report can say so. */
export interface UnplacedRedline {
  readonly id: string;
  readonly clauseId: string;
  /** The edit at fault, as its index in the redline's `edits`; absent when the whole redline is. */
  readonly edit?: number;
  readonly reason: UnplacedReason;
  readonly detail: string;
}

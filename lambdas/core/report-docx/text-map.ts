/**
 * The alignment of the document's text with the normalised text the report's offsets index. It
 * lives in `core/wordml/`, where intake reads the upload's own tracked changes by it too; the
 * modules of report.docx take it from here.
 */
export { type Atom, alignText, documentAtoms, positionless, spanAtoms, textOf } from '../wordml/index.js';

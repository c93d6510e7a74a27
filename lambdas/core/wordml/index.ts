/**
 * Reading a Word document's XML: WordprocessingML's names, a part parsed strictly, and the
 * alignment of the body's text with the normalised text the clauses index. Below both the
 * readers of an upload (`documents/`) and the writer of report.docx (`report-docx/`).
 */
export { elements, isW, W_NS, wAttr, wChild } from './names.js';
export { parsePart } from './parse-part.js';
export {
  type Atom,
  alignText,
  documentAtoms,
  outsideText,
  positionless,
  spanAtoms,
  textOf,
} from './text-map.js';

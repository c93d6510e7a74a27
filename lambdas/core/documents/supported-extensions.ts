/** The extensions an uploader may use, as named in every unsupported-type message. */
export const SUPPORTED_EXTENSIONS = '.pdf, .docx, .txt, .md, .html';

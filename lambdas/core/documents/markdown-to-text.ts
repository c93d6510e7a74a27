import { decodeHtmlEntities } from './html-entities.js';
import { codeSpanText, emphasisText, linkText } from './markdown-inline.js';

/** Backslash escapes are protected as private-use characters while the markup is stripped. */
const ESCAPE_BASE = 0xe000;
const ESCAPABLE = /\\([!-/:-@[-`{-~])/g;
const PROTECTED = /[\ue021-\ue07e]/g;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)(.*?)(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const BLOCKQUOTE = /^ {0,3}>[ \t]?/;
const BULLET = /^([ \t]*)[-*+][ \t]+(?:\[[ xX]\][ \t]+)?/;
const TABLE_DELIMITER_ROW = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/;
const LINK_DEFINITION = /^ {0,3}\[[^\]]+\]:[ \t]*\S+.*$/;

/**
 * Reduces Markdown to its text: heading and quote markers, bullets, table pipes, fences, link
 * targets, emphasis and escapes go; words, numbering (`1.`, `(a)`) and line structure stay, so
 * the clause splitter sees the same text a reader sees in the rendered document.
 */
export function markdownToText(markdown: string): string {
  const lines = markdown.replace(ESCAPABLE, (_, c: string) =>
    String.fromCharCode(ESCAPE_BASE + c.charCodeAt(0)),
  );
  const out: string[] = [];
  let fence: string | undefined;
  let previous = '';
  for (const raw of lines.split(/\r\n?|\n/)) {
    const fenceMatch = FENCE.exec(raw);
    if (fence !== undefined) {
      // Code is shown verbatim; only the closing fence is markup.
      if (fenceMatch !== null && (fenceMatch[1] as string).startsWith(fence)) fence = undefined;
      else out.push(raw);
      continue;
    }
    if (fenceMatch !== null) {
      fence = (fenceMatch[1] as string).slice(0, 3);
      continue;
    }
    let line = raw;
    while (BLOCKQUOTE.test(line)) line = line.replace(BLOCKQUOTE, '');
    if (THEMATIC_BREAK.test(line) || (SETEXT_UNDERLINE.test(line) && previous.trim() !== '')) {
      // A rule, or the underline of the heading above: neither is text.
      line = '';
    } else if (TABLE_DELIMITER_ROW.test(line) || LINK_DEFINITION.test(line)) {
      line = '';
    } else {
      const heading = ATX_HEADING.exec(line);
      if (heading !== null) line = heading[1] as string;
      line = line.replace(BULLET, '$1');
      if (/^[ \t]*\|.*\|[ \t]*$/.test(line)) line = line.trim().slice(1, -1).split('|').join('  ');
      line = inline(line);
    }
    previous = raw;
    out.push(line);
  }
  return out.join('\n').replace(PROTECTED, (c) => String.fromCharCode(c.charCodeAt(0) - ESCAPE_BASE));
}

/** Inline markup: images and links keep their text, code spans and emphasis their content. */
function inline(line: string): string {
  return decodeHtmlEntities(
    emphasisText(
      codeSpanText(
        linkText(line)
          .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
          .replace(/<br\s*\/?>/gi, '\n')
          .replace(/<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>/g, ''),
      ),
    ),
  );
}

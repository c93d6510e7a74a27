import { decodeHtmlEntities } from './html-entities.js';

/** Elements whose content is never visible text: dropped with everything inside them. */
const DROPPED = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'title',
  'svg',
  'math',
  'object',
]);

/** Elements that start a new paragraph in a browser; the splitter reads a blank line as that. */
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'caption',
  'center',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'legend',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  // Filings often lay clauses out as table rows (number in one cell, text in the next).
  'tr',
  'ul',
]);

/** Table cells sit side by side: a space keeps their words apart. */
const CELLS = new Set(['td', 'th']);

const TAG_START = /<(\/?)([A-Za-z][A-Za-z0-9:-]*)/y;

/**
 * Converts an HTML document to the text a browser would show, with block boundaries as blank
 * lines and `<br>` as a line break. Not a full HTML parser, but careful where it matters for
 * contracts: comments, CDATA, doctype, `<head>`/`<script>`/`<style>` with their content, quoted
 * attributes containing `>`, literal `<` in text, `<pre>` whitespace, character references.
 */
export function htmlToText(html: string): string {
  const out: string[] = [];
  let pre = 0;
  const text = (s: string): void => {
    if (s === '') return;
    // Source line breaks and indentation are not visible in a browser, except inside <pre>.
    out.push(decodeHtmlEntities(pre > 0 ? s : s.replace(/[ \t\n\r\f]+/g, ' ')));
  };
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      text(html.slice(i));
      break;
    }
    text(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (html.startsWith('<![CDATA[', lt)) {
      const end = html.indexOf(']]>', lt + 9);
      out.push(html.slice(lt + 9, end < 0 ? n : end));
      i = end < 0 ? n : end + 3;
      continue;
    }
    if (html[lt + 1] === '!' || html[lt + 1] === '?') {
      // Doctype or processing instruction.
      const end = html.indexOf('>', lt);
      i = end < 0 ? n : end + 1;
      continue;
    }
    TAG_START.lastIndex = lt;
    const tag = TAG_START.exec(html);
    if (tag === null) {
      // "a < b" in text: a literal less-than sign, as browsers treat it.
      text('<');
      i = lt + 1;
      continue;
    }
    i = endOfTag(html, lt + tag[0].length);
    const closing = tag[1] === '/';
    const name = (tag[2] as string).toLowerCase();
    if (!closing && DROPPED.has(name)) {
      if (html[i - 2] === '/') continue; // self-closed, e.g. <svg/>
      // </head> may be omitted, in which case <body> ends the head.
      const end = new RegExp(name === 'head' ? '</head\\s*>|(?=<body[\\s>])' : `</${name}\\s*>`, 'gi');
      end.lastIndex = i;
      const found = end.exec(html);
      i = found === null ? n : found.index + found[0].length;
      continue;
    }
    if (name === 'br') out.push('\n');
    else if (BLOCKS.has(name)) out.push('\n\n');
    else if (CELLS.has(name)) out.push(' ');
    if (name === 'pre') pre = Math.max(0, pre + (closing ? -1 : 1));
  }
  return out.join('');
}

/**
 * Index just past the `>` that closes a tag opened before `from`. A `>` inside a quoted attribute
 * value does not close it; a quote only opens a value right after `=`, so "don't" in an unquoted
 * value does not swallow the rest of the document.
 */
function endOfTag(html: string, from: number): number {
  let quote: string | undefined;
  let afterEquals = false;
  for (let j = from; j < html.length; j++) {
    const c = html[j] as string;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '>') return j + 1;
    if ((c === '"' || c === "'") && afterEquals) quote = c;
    else if (c === '=') {
      afterEquals = true;
      continue;
    }
    if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') afterEquals = false;
  }
  return html.length;
}

import { describe, expect, it } from 'vitest';
import { decodeHtmlEntities } from '../../../lambdas/core/documents/html-entities.js';
import { htmlToText } from '../../../lambdas/core/documents/html-to-text.js';
import { normaliseText } from '../../../lambdas/core/documents/index.js';
import { markdownToText } from '../../../lambdas/core/documents/markdown-to-text.js';

describe('normaliseText', () => {
  it.each([
    ['CRLF and CR line ends', 'a\r\nb\rc', 'a\nb\nc'],
    ['Unicode line and paragraph separators', 'a\u2028b\u2029c', 'a\nb\n\nc'],
    ['tabs and odd spaces', 'a\tb\u00a0c\u2003d\u202fe\u3000f', 'a b c d e f'],
    ['runs of spaces within a line', 'Section    2.3     Term', 'Section 2.3 Term'],
    ['line ends and starts trimmed', '   WEB HOSTING AGREEMENT   \n  text  ', 'WEB HOSTING AGREEMENT\ntext'],
    ['blank lines collapsed to one', 'a\n\n\n\n\nb\n \n\t\nc', 'a\n\nb\n\nc'],
    ['form feeds as a page break', 'end of page.\fNext page', 'end of page.\n\nNext page'],
    [
      'control and invisible characters removed',
      'a\u0000b\u0007c\u001bd\u200be\u00adf\ufeffg\u0085h',
      'abcdefg\nh',
    ],
    ['surrounding whitespace', '\n\n  text \n\n', 'text'],
    ['decomposed accents composed (NFC)', 'Cafe\u0301 Societe\u0301', 'Café Societé'],
    ['nothing but whitespace', ' \n\t\r\n ', ''],
  ])('%s', (_name, raw, expected) => {
    expect(normaliseText(raw)).toBe(expected);
  });

  it('is idempotent', () => {
    const raw = ' A\r\n\r\n\r\n\tB \u00a0 C\f\u200bD\u0301 ';
    expect(normaliseText(normaliseText(raw))).toBe(normaliseText(raw));
  });
});

describe('decodeHtmlEntities', () => {
  it('decodes named, decimal and hexadecimal references', () => {
    expect(decodeHtmlEntities('&amp;&lt;&gt;&quot;&apos;&nbsp;&sect;&para;&copy;&eacute;&yuml;')).toBe(
      '&<>"\'\u00a0§¶©éÿ',
    );
    expect(decodeHtmlEntities('&ldquo;x&rdquo; &ndash; &mdash; &hellip; &euro;')).toBe('“x” – — … €');
    expect(decodeHtmlEntities('&#167; &#xA7; &#X1F600;')).toBe('§ § 😀');
  });

  it('reads C1 references as windows-1252 and invalid ones as U+FFFD, leaving unknown names alone', () => {
    expect(decodeHtmlEntities('&#150; &#147;x&#148; &#0; &#xD800; &#x110000;')).toBe(
      '– “x” \ufffd \ufffd \ufffd',
    );
    expect(decodeHtmlEntities('&bogus; &amp no semicolon; AT&T')).toBe('&bogus; &amp no semicolon; AT&T');
  });
});

describe('htmlToText', () => {
  it('keeps only what a browser shows, with blocks as paragraphs', () => {
    const html =
      '<html><head><title>T</title><meta charset="utf-8"><style>b{}</style></head>' +
      '<body><h2>1.\n  Definitions</h2><p>“Affiliate” means&nbsp;any <b>entity</b>\n   controlling a Party.</p>' +
      '<script type="text/javascript">if (a < b) { document.write("<p>x</p>") }</script>' +
      '<ul><li>first</li><li>second</li></ul>A<br/>B<hr>C &lt;D&gt; 3 < 4' +
      '<img alt="logo" src="a.png"><![CDATA[raw]]><?php echo 1 ?></body></html>';
    expect(normaliseText(htmlToText(html))).toBe(
      '1. Definitions\n\n“Affiliate” means any entity controlling a Party.\n\nfirst\n\nsecond\n\nA\nB\n\nC <D> 3 < 4raw',
    );
  });

  it('keeps <pre> whitespace and separates table cells', () => {
    expect(htmlToText('<pre>a\n  b</pre>')).toBe('\n\na\n  b\n\n');
    expect(
      normaliseText(htmlToText('<table><tr><td>1.1</td><td>Term</td></tr><tr><td>1.2</td></tr></table>')),
    ).toBe('1.1 Term\n\n1.2');
  });

  it('is not fooled by > inside quoted attributes or by an unclosed <head>', () => {
    expect(normaliseText(htmlToText('<p title="a > b" data-x=\'>\'>Text</p>'))).toBe('Text');
    expect(normaliseText(htmlToText('<head><title>x</title><body><p>Body</p></body>'))).toBe('Body');
    expect(normaliseText(htmlToText("<p class=don't>Text</p>"))).toBe('Text');
  });
});

describe('markdownToText', () => {
  it('keeps unclosed or unmatched inline markup as text, whatever its length', () => {
    expect(markdownToText('[a]('.repeat(1000))).toBe('[a]('.repeat(1000));
    // A link's target runs to the next `)`, as CommonMark reads it: `[b]([a](x)` is the link `b`.
    expect(markdownToText('[a](x) [b]('.repeat(3))).toBe('a b b [b](');
    expect(markdownToText('`a'.repeat(5))).toBe(`${'a'.repeat(4)}\`a`);
    expect(markdownToText('``x` y``')).toBe('x` y');
    expect(markdownToText('***both*** and **strong *inner* text** and ~~gone~~ and a*b*c')).toBe(
      'both and strong inner text and gone and a*b*c',
    );
    expect(markdownToText('*a '.repeat(4))).toBe('*a '.repeat(4));
  });

  it('strips markup but keeps words, numbering and structure', () => {
    const md = [
      '# 1. Definitions #',
      '',
      'Heading',
      '=======',
      '',
      '**Affiliate** means any _entity_ controlling a `Party`; see [the site](https://x.example) and ![logo](a.png).',
      '',
      '- first item',
      '* [x] second item',
      '',
      '> (a) quoted clause',
      '',
      '| Fee | Amount |',
      '|-----|-------:|',
      '| Set-up | $5,000 |',
      '',
      '```',
      '**kept** as code',
      '```',
      '',
      '***',
      '[ref]: https://x.example',
      'snake_case_name and 2 * 3 * 4 and \\*escaped\\* &amp; more',
    ].join('\n');
    expect(normaliseText(markdownToText(md))).toBe(
      [
        '1. Definitions',
        '',
        'Heading',
        '',
        'Affiliate means any entity controlling a Party; see the site and logo.',
        '',
        'first item',
        'second item',
        '',
        '(a) quoted clause',
        '',
        'Fee Amount',
        '',
        'Set-up $5,000',
        '',
        '**kept** as code',
        '',
        'snake_case_name and 2 * 3 * 4 and *escaped* & more',
      ].join('\n'),
    );
  });
});

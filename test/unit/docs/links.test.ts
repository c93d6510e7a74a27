/**
 * Every relative link of README.md and docs/ leads somewhere: the file it names exists, and a
 * `#anchor` is the slug of a heading in that file, as GitHub makes it (github-slugger: lowercase,
 * punctuation and symbols dropped except `-` and `_`, each space a hyphen, `-1`, `-2` after a
 * repeated heading). Links to other sites are not fetched.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../lib/project-root.js';

/** The markdown files whose links are checked, relative to the repository root. */
function markdownFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', ...walk('docs')];
}

/** The text outside fenced code blocks, line by line (a fence's lines become empty). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker?.[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    if (marker) {
      fence = marker;
      return '';
    }
    return line;
  });
}

/** A line with its code spans taken out, so `[x](y)` written as code is not a link. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, '');
}

/** The anchors the file's headings get on GitHub, in order. */
function anchorsOf(markdown: string): string[] {
  const slugger = new GithubSlugger();
  return proseLines(markdown).flatMap((line) => {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) return [];
    // GitHub slugs the heading's text as rendered: a link's text without its target, code
    // spans without their backticks (which the slugger drops anyway).
    return [slugger.slug(heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1'))];
  });
}

/** Every link and image target of the file, with the line it is on. */
function linksOf(markdown: string): { target: string; line: number }[] {
  return proseLines(markdown).flatMap((raw, index) => {
    const line = withoutCodeSpans(raw);
    const inline = [...line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
    const definitions = [...line.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/g)];
    return [...inline, ...definitions].map((m) => ({ target: m[1] ?? '', line: index + 1 }));
  });
}

/** What is wrong with each relative link of `file`, one message per broken link. */
function brokenLinks(file: string, markdown: string, read: (path: string) => string | undefined): string[] {
  return linksOf(markdown).flatMap(({ target, line }) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return [];
    const [pathPart = '', anchor] = target.split('#', 2);
    const path = pathPart === '' ? file : join(dirname(file), decodeURIComponent(pathPart));
    const where = `${file}:${line} → ${target}`;
    const text = pathPart === '' ? markdown : read(path);
    if (text === undefined) return [`${where}: ${path} does not exist`];
    if (anchor === undefined) return [];
    if (!path.endsWith('.md')) return [`${where}: an anchor into ${path}, which has no headings`];
    const anchors = anchorsOf(text);
    return anchors.includes(anchor) ? [] : [`${where}: no heading of ${path} has the anchor #${anchor}`];
  });
}

/** The file's text, '' for a directory, undefined when nothing is there. */
function readRepoFile(path: string): string | undefined {
  const full = join(PROJECT_ROOT, path);
  if (relative(PROJECT_ROOT, full).startsWith('..') || !existsSync(full)) return undefined;
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
}

describe('links in README.md and docs/', () => {
  it("slugs headings as GitHub does: code, '&', '/', '—', '→' and apostrophes dropped", () => {
    const page = [
      '# report.json — schema version 1',
      '## `GET /jobs/{id}/findings?after=<cursor>` → 200',
      "## Holds: pause, resume and a reviewer's gate",
      '## Models & costs',
      '## Capacity and `clause-review plan`',
      '## snake_case stays',
      '## Figures',
      '## Figures',
      '```bash',
      '# a comment in a fence is no heading',
      '```',
    ].join('\n');
    expect(anchorsOf(page)).toEqual([
      'reportjson--schema-version-1',
      'get-jobsidfindingsaftercursor--200',
      'holds-pause-resume-and-a-reviewers-gate',
      'models--costs',
      'capacity-and-clause-review-plan',
      'snake_case-stays',
      'figures',
      'figures-1',
    ]);
  });

  it('names each broken link: a missing file, a missing anchor, an anchor into a file without headings', () => {
    const pages: Record<string, string> = {
      'docs/a.md': '# A page\n\n## Deploy to AWS\n',
      'docs/pic.png': '',
    };
    const page = [
      'See [deploy](a.md#deploy-to-aws), [the top](#the-top), [pic](pic.png) and ![pic](./pic.png).',
      'Broken: [gone](gone.md), [anchor](a.md#deploy), [into a picture](pic.png#x).',
      'Not links: `[code](nowhere.md)`, [site](https://example.com/x#y), [mail](mailto:a@example.com).',
      '```md',
      '[in a fence](nowhere.md)',
      '```',
      '[ref]: a.md#missing',
      '# The top',
    ].join('\n');
    expect(brokenLinks('docs/b.md', page, (path) => pages[path])).toEqual([
      'docs/b.md:2 → gone.md: docs/gone.md does not exist',
      'docs/b.md:2 → a.md#deploy: no heading of docs/a.md has the anchor #deploy',
      'docs/b.md:2 → pic.png#x: an anchor into docs/pic.png, which has no headings',
      'docs/b.md:7 → a.md#missing: no heading of docs/a.md has the anchor #missing',
    ]);
  });

  it('leave no relative link broken', () => {
    const files = markdownFiles();
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/api.md']));
    const checked = files.map((file) => ({ file, links: linksOf(readRepoFile(file) ?? '').length }));
    expect(checked.filter((f) => f.file === 'README.md')[0]?.links).toBeGreaterThan(0);
    const broken = files.flatMap((file) => brokenLinks(file, readRepoFile(file) ?? '', readRepoFile));
    expect(broken).toEqual([]);
  });
});

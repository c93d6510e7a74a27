/** label-acceptance.ts: whether a label is believable where it stands, and what accepting it does. */
import { describe, expect, it } from 'vitest';
import { type Marker, parseMarkerAt } from '../../../lambdas/core/documents/clause-marker.js';
import {
  acceptAtLineStart,
  acceptInline,
  advance,
  endingOf,
  type LineContext,
  stripSeparator,
  titleBefore,
} from '../../../lambdas/core/documents/label-acceptance.js';
import { Numbering } from '../../../lambdas/core/documents/numbering.js';

const marker = (text: string, at = 0): Marker => {
  const m = parseMarkerAt(text, at);
  if (!m) throw new Error(`no label at ${at} in ${text}`);
  return m;
};
const fresh: LineContext = { paragraphStart: true, ending: 'terminal', afterStructure: false };

describe('label acceptance', () => {
  it('reads how a line ended', () => {
    expect(endingOf(undefined)).toBe('start');
    expect(endingOf('the Services; and')).toBe('conjunction');
    expect(endingOf('as set out below.')).toBe('terminal');
    expect(endingOf('as provided in Section')).toBe('reference');
    expect(endingOf('the Customer shall pay')).toBe('open');
  });

  it('believes a number that starts a paragraph, not one that continues a cross-reference', () => {
    const line = '2. Term. This Agreement starts on the Effective Date.';
    expect(acceptAtLineStart(marker(line), fresh, new Numbering(), line)).toBe(true);
    const afterSection: LineContext = { paragraphStart: false, ending: 'reference', afterStructure: false };
    expect(acceptAtLineStart(marker(line), afterSection, new Numbering(), line)).toBe(false);
  });

  it('believes an inline number after a full stop when it continues the numbering, not after "Section"', () => {
    const numbering = new Numbering();
    advance(marker('1. Scope.'), numbering);
    const text = 'the end of the scope. 2. Term. This Agreement';
    const at = text.indexOf('2.');
    const m = marker(text, at);
    expect(
      acceptInline(m, text.slice(0, at).trimEnd(), text.slice(at + m.length), false, false, numbering),
    ).toBe(true);
    const ref = 'as provided in Section 2. Term';
    const refAt = ref.indexOf('2.');
    const r = marker(ref, refAt);
    expect(
      acceptInline(r, ref.slice(0, refAt).trimEnd(), ref.slice(refAt + r.length), false, false, numbering),
    ).toBe(false);
  });

  it('advances the numbering and gives the heading level of what it accepted', () => {
    const numbering = new Numbering();
    expect(advance(marker('ARTICLE IV PAYMENT'), numbering)).toBe(0);
    expect(advance(marker('4.2 Fees'), numbering)).toBe(2);
    expect(numbering.continues([4, 3])).toBe(true);
  });

  it('finds a Title Case heading run in before a number, never a reference word', () => {
    const text = 'as follows: Formation 1. By this Agreement';
    expect(titleBefore(text, text.indexOf('1.'), true)).toEqual({
      start: text.indexOf('Formation'),
      title: 'Formation',
    });
    const ref = 'the rights set out. See Section 5. The';
    expect(titleBefore(ref, ref.indexOf('5.'), false)).toBeUndefined();
  });

  it('drops the separator between a label and its title', () => {
    expect(stripSeparator(' - DEFINITIONS')).toBe('DEFINITIONS');
    expect(stripSeparator('.: Term ')).toBe('Term');
  });
});

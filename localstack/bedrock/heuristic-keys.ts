/**
 * What the heuristic analyst reads into property names: the words that mark a score, a quote,
 * a rationale, a category, and so on, compared after normalising ("risk_score" -> "riskscore").
 */
import type { SchemaNode } from './json-schema.js';

const words = (list: string): ReadonlySet<string> => new Set(list.split(' '));
export const SCORE_KEYS = words('score riskscore risklevel rating severityscore severity level risk');
export const QUOTE_KEYS = words(
  'quote quotation excerpt verbatim snippet span quotetext quotedtext evidence',
);
export const TEXT_KEYS = words(
  'rationale reason reasoning explanation justification comment comments note notes analysis summary ' +
    'overview assessment details detail commentary why description message',
);
export const CATEGORY_KEYS = words(
  'category categoryid categoryname riskcategory categorykey id key name type',
);
export const PRESENT_KEYS = words(
  'present ispresent applicable isapplicable found detected flagged relevant addressed mentioned applies triggered',
);
export const HIGH_RISK_BOOL_KEYS = words(
  'highrisk ishighrisk risky isrisky requiresreview needsreview escalate',
);
export const TERMS_KEYS = words('keywords terms matchedterms matches signals triggers riskterms indicators');
export const CONFIDENCE_KEYS = words('confidence certainty');
export const START_KEYS = words('start startoffset startindex offset begin');
export const END_KEYS = words('end endoffset endindex');
export const SEVERITY_WORDS: readonly (readonly string[])[] = [
  ['none', 'absent', 'na', 'notpresent', 'notapplicable', 'nil', 'no'],
  ['low', 'minor', 'minimal', 'info', 'informational'],
  ['medium', 'moderate', 'mid', 'elevated'],
  ['high', 'major', 'critical', 'severe', 'significant', 'veryhigh'],
];

const normalizedKeys = new Map<string, string>();

/** Lowercase alphanumerics only ("risk_score" -> "riskscore"); memoised, as keys repeat on every call. */
export function normKey(key: string): string {
  let out = normalizedKeys.get(key);
  if (out === undefined) {
    out = '';
    for (const ch of key.toLowerCase()) if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) out += ch;
    if (normalizedKeys.size > 4096) normalizedKeys.clear();
    normalizedKeys.set(key, out);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Schema compilation cache.

export const scoreProperty = (node: SchemaNode): string | undefined => {
  if (!node.properties) return undefined;
  for (const [key, child] of node.properties) {
    const k = normKey(key);
    if (
      (SCORE_KEYS.has(k) || k.endsWith('score')) &&
      (child.types.includes('integer') || child.types.includes('number'))
    ) {
      return key;
    }
  }
  return undefined;
};

export const quoteProperty = (node: SchemaNode): string | undefined => {
  if (!node.properties) return undefined;
  for (const [key, child] of node.properties) {
    if (QUOTE_KEYS.has(normKey(key)) && child.types.includes('string')) return key;
  }
  return undefined;
};

/** The property of a category-list item that names its category, with the allowed names if any. */
export function categoryNameProperty(
  node: SchemaNode,
): { key: string; names?: readonly string[] } | undefined {
  if (!node.properties) return undefined;
  for (const [key, child] of node.properties) {
    if (!CATEGORY_KEYS.has(normKey(key))) continue;
    if (child.hasConst && typeof child.constValue === 'string') return { key, names: [child.constValue] };
    const names = child.enumValues?.filter((value): value is string => typeof value === 'string');
    if (names && names.length > 0) return { key, names };
    if (child.types.includes('string')) return { key };
  }
  return undefined;
}

export const isSemanticKey = (key: string): boolean => {
  const k = normKey(key);
  return (
    SCORE_KEYS.has(k) ||
    QUOTE_KEYS.has(k) ||
    TEXT_KEYS.has(k) ||
    CATEGORY_KEYS.has(k) ||
    PRESENT_KEYS.has(k) ||
    HIGH_RISK_BOOL_KEYS.has(k) ||
    TERMS_KEYS.has(k) ||
    CONFIDENCE_KEYS.has(k) ||
    k === 'findings' ||
    k.endsWith('score')
  );
};

export const isTextKey = (key: string): boolean => {
  const k = normKey(key);
  return TEXT_KEYS.has(k) || k.endsWith('rationale') || k.endsWith('summary');
};

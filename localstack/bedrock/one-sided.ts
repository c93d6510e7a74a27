/**
 * One-sided wording, as the stand-in reads it against a playbook position: a sentence on the
 * position's topic that lets a party act at its own discretion or without notice ("in its sole
 * discretion", "without notice", "at its absolute discretion"), where none of the position's
 * rungs gives a party such a right, is below every rung: the playbook's rungs each ask for notice,
 * a period or a mutual term. The same measure judges a clause as it read before the other side's
 * change and as it reads now, so a change that brings such words in is seen to lower the rung.
 */

/** Words that give one party a right it need not justify or announce. */
const ONE_SIDED =
  /\b(?:(?:sole|absolute|unfettered|own) discretion|without (?:prior |any )?notice|for any reason or no reason)\b/i;

/** A sentence of the clause the stand-in read as the topic's. */
interface TopicSentence {
  readonly text: string;
}

/** The rungs of a position, as the stand-in reads their language. */
interface PositionRungs {
  readonly standard: { readonly language: string };
  readonly fallbacks: readonly { readonly language: string }[];
}

/**
 * The one-sided words of the first topic sentence holding them, when no rung of the position uses
 * such words itself; undefined otherwise.
 *
 * @example oneSidedWords([{ text: 'Todos may terminate in its sole discretion and without notice.' }], p) // 'sole discretion'
 */
export function oneSidedWords(
  sentences: readonly TopicSentence[],
  position: PositionRungs,
): string | undefined {
  if ([position.standard, ...position.fallbacks].some((r) => ONE_SIDED.test(r.language))) return undefined;
  for (const s of sentences) {
    const m = ONE_SIDED.exec(s.text);
    if (m) return m[0];
  }
  return undefined;
}

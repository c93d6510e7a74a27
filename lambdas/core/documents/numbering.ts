import type { SubReading } from './clause-marker.js';

/**
 * The numbering seen so far in a document: the last clause number (`4.2` as [4, 2]) and the open
 * sub-clause lists below it (`(b)` then `(iii)`), innermost last. It answers the question that
 * separates a clause label from a number in running text: is this the label that would come next?
 */
export class Numbering {
  private path: readonly number[] | undefined;
  private subs: { style: string; value: number }[] = [];

  /**
   * True when `path` continues the numbering: the next sibling at any level (4.2 -> 4.3, 5),
   * the first child (4.2 -> 4.2.1), or the first child of the next sibling (4.2 -> 5.1).
   * Before any number, only 1 and 1.1 continue it. `skip` tolerates that many missed numbers
   * (a label the splitter could not see, e.g. after a bullet list), for callers with other evidence.
   */
  continues(path: readonly number[], skip = 0): boolean {
    const last = this.path;
    if (last === undefined)
      return isFirst(path) || (skip > 0 && path.length === 1 && (path[0] as number) <= 1 + skip);
    if (
      path.length === last.length + 1 &&
      path[path.length - 1] === 1 &&
      prefixEquals(path, last, last.length)
    ) {
      return true;
    }
    for (let depth = 1; depth <= last.length; depth++) {
      if (!prefixEquals(path, last, depth - 1)) break;
      const step = (path[depth - 1] as number) - (last[depth - 1] as number);
      if (step < 1 || step > 1 + skip) continue;
      if (path.length === depth) return true;
      if (path.length === depth + 1 && path[depth] === 1) return true;
    }
    return false;
  }

  /** True when `path` is near the current numbering (same top number, or a few either side). */
  near(path: readonly number[]): boolean {
    const top = this.path?.[0];
    const first = path[0] as number;
    if (top === undefined) return first <= 3;
    return first >= top - 1 && first <= top + 3;
  }

  /** Records a clause number; sub-clause lists below the previous number are closed. */
  acceptNumber(path: readonly number[]): void {
    this.path = path;
    this.subs = [];
  }

  /** Forgets all numbering: an exhibit or schedule starts its own. */
  reset(): void {
    this.path = undefined;
    this.subs = [];
  }

  /**
   * Chooses the reading of a sub-clause label and says whether it continues an open list
   * (`(c)` after `(b)`) or starts a new one (`(a)`, `(i)`, `(1)`). `(i)` after `(h)` is a letter;
   * otherwise a numeral. Returns the depth the label would take, 0 being the outermost list.
   */
  classify(readings: readonly SubReading[]): { reading: SubReading; continues: boolean; depth: number } {
    for (const reading of readings) {
      const depth = this.subs.findIndex((s) => s.style === reading.style);
      if (depth >= 0 && (this.subs[depth] as { value: number }).value + 1 === reading.value) {
        return { reading, continues: true, depth };
      }
    }
    for (const reading of readings) {
      if (reading.value !== 1) continue;
      const depth = this.subs.findIndex((s) => s.style === reading.style);
      return { reading, continues: true, depth: depth >= 0 ? depth : this.subs.length };
    }
    const reading = readings[0] as SubReading;
    const depth = this.subs.findIndex((s) => s.style === reading.style);
    return { reading, continues: false, depth: depth >= 0 ? depth : this.subs.length };
  }

  /** Records a sub-clause label at the depth {@link classify} gave; deeper lists close. */
  acceptSub(reading: SubReading, depth: number): void {
    this.subs.length = Math.min(this.subs.length, depth);
    this.subs.push({ style: reading.style, value: reading.value });
  }

  /** Depth of clause numbers: 0 before any, 2 for `4.2`. */
  get numberDepth(): number {
    return this.path?.length ?? 0;
  }
}

const isFirst = (path: readonly number[]): boolean =>
  path[0] === 1 && (path.length === 1 || (path.length === 2 && path[1] === 1));

function prefixEquals(a: readonly number[], b: readonly number[], length: number): boolean {
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false;
  return true;
}

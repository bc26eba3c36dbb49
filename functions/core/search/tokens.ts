/**
 * Words as the engine's full-text index sees them: the index's "simple" tokenizer splits on anything
 * that is not a letter or digit, lower-cases and folds accents (ASCII folding). The query parser, the
 * prefix column and the snippet marker all use this one definition, so they agree with the index.
 */

const WORD = /[\p{L}\p{N}]+/gu;
const COMBINING_MARK = /\p{M}/gu;

/** Lower-cased, accents folded (`Café` → `cafe`). */
function foldWord(word: string): string {
  return word.normalize('NFKD').replace(COMBINING_MARK, '').toLowerCase();
}

/** The words of `text`, folded, in order. */
export function tokenize(text: string): string[] {
  return [...text.matchAll(WORD)].map((match) => foldWord(match[0]));
}

/** The words of `text` with where each one stands in it, for marking matches in a snippet. */
export function wordSpans(text: string): { word: string; start: number; end: number }[] {
  return [...text.matchAll(WORD)].map((match) => ({
    word: foldWord(match[0]),
    start: match.index,
    end: match.index + match[0].length,
  }));
}

/** Edits allowed for a word typed with this many letters: none under 5, one up to 8, two from 9. */
export function typoBudget(word: string): 0 | 1 | 2 {
  const letters = [...word].length;
  return letters >= 9 ? 2 : letters >= 5 ? 1 : 0;
}

/**
 * Edit distance counting two swapped neighbouring letters as one edit (optimal string alignment, as
 * a typist would: `insomina` is one slip from `insomnia`), stopping early once it passes `max` (then
 * returns max + 1).
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        current[j] = Math.min(current[j]!, beforePrevious[j - 2]! + 1);
      rowMin = Math.min(rowMin, current[j]!);
    }
    if (rowMin > max) return max + 1;
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The word with two neighbouring letters swapped, each way it can be (`insomina` → `nisomina`, …,
 * `insomnia`): the engine's fuzzy match counts a swap as two edits, over a budget of one below nine
 * letters, so these are asked for as words of their own.
 */
export function swappedLetters(word: string): string[] {
  const letters = [...word];
  const variants = new Set<string>();
  for (let i = 0; i + 1 < letters.length; i++) {
    if (letters[i] === letters[i + 1]) continue;
    const swapped = [...letters];
    [swapped[i], swapped[i + 1]] = [swapped[i + 1]!, swapped[i]!];
    variants.add(swapped.join(''));
  }
  return [...variants];
}

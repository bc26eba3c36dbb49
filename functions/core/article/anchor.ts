/**
 * Anchoring highlights in a kept page's text with a W3C TextQuoteSelector (exact, prefix, suffix),
 * as Hypothesis does: the quote itself, with a little of the text before and after it to tell
 * repeated passages apart. Pure: no DOM, no I/O (the reader's script and the server both use it).
 *
 * The same page reaches us as different texts: the plain text the page worker kept (a blank line
 * between blocks), the text nodes of its HTML (none between blocks) and a browser's selection (its
 * own line breaks). So matching disregards white space entirely and compares what is left, in
 * Unicode's composed form; offsets are always those of the text searched.
 */

/** A W3C Web Annotation TextQuoteSelector; prefix and suffix are empty when not known. */
export interface TextQuoteSelector {
  readonly exact: string;
  readonly prefix: string;
  readonly suffix: string;
}

/** Characters of context a selector keeps on each side (Hypothesis keeps 32). */
export const SELECTOR_CONTEXT = 32;

/** Where a selector's passage is in a text: `text.slice(start, end)`. */
export interface TextRange {
  readonly start: number;
  readonly end: number;
}

/** The selector of `text.slice(start, end)`, with SELECTOR_CONTEXT characters around it. */
export function describeTextQuote(text: string, range: TextRange, context = SELECTOR_CONTEXT): TextQuoteSelector {
  return {
    exact: text.slice(range.start, range.end),
    prefix: text.slice(Math.max(0, range.start - context), range.start),
    suffix: text.slice(range.end, range.end + context),
  };
}

/**
 * Where `selector` is in `text`: the first place its `exact` passage occurs with text before it that
 * ends with `prefix` and text after it that starts with `suffix` (white space disregarded). Null when
 * there is none, or when `exact` holds nothing but white space.
 */
export function findTextQuote(text: string, selector: QuoteToFind): TextRange | null {
  return textQuoteFinder(text)(selector);
}

/** A selector to find: its quote, and the context it has. */
export type QuoteToFind = Pick<TextQuoteSelector, 'exact'> & Partial<TextQuoteSelector>;

/**
 * findTextQuote over one text for many selectors (the text is prepared once). With `context: 'best'`
 * (the reader's marks), a passage whose context has changed (the page fetched again) is still found:
 * of the places its quote occurs, the one whose surroundings agree longest with its prefix and suffix.
 */
export function textQuoteFinder(
  text: string,
): (selector: QuoteToFind, options?: { readonly context: 'exact' | 'best' }) => TextRange | null {
  const searched = squeeze(text);
  const range = (at: number, end: number): TextRange => ({
    start: searched.offsets[at]!,
    end: searched.offsets[end - 1]! + searched.widths[end - 1]!,
  });
  return (selector, options) => {
    const exact = squeeze(selector.exact).chars;
    if (!exact) return null;
    const prefix = squeeze(selector.prefix ?? '').chars;
    const suffix = squeeze(selector.suffix ?? '').chars;
    let best: { at: number; agreement: number } | null = null;
    for (let at = searched.chars.indexOf(exact); at !== -1; at = searched.chars.indexOf(exact, at + 1)) {
      const end = at + exact.length;
      const before = agreement(prefix, searched.chars, at, -1);
      const after = agreement(suffix, searched.chars, end, 1);
      if (before === prefix.length && after === suffix.length) return range(at, end);
      if (!best || before + after > best.agreement) best = { at, agreement: before + after };
    }
    return options?.context === 'best' && best ? range(best.at, best.at + exact.length) : null;
  };
}

/** How many characters of `context` agree with `text` going away from `from` (back for a prefix, on for a suffix). */
function agreement(context: string, text: string, from: number, direction: 1 | -1): number {
  let count = 0;
  while (count < context.length) {
    const mine = direction === 1 ? context[count] : context[context.length - 1 - count];
    const theirs = direction === 1 ? text[from + count] : text[from - 1 - count];
    if (mine === undefined || mine !== theirs) break;
    count++;
  }
  return count;
}

/**
 * `text` without white space, in NFC, with the offset in `text` of each character left (and how many
 * characters of `text` it stands for: composing may join two into one).
 */
function squeeze(text: string): { chars: string; offsets: number[]; widths: number[] } {
  let chars = '';
  const offsets: number[] = [];
  const widths: number[] = [];
  // A character and the combining marks after it compose together: normalise each such cluster.
  for (const match of text.matchAll(/\S\p{M}*/gu)) {
    const composed = match[0].normalize('NFC');
    for (const unit of composed) {
      chars += unit;
      for (let i = 0; i < unit.length; i++) {
        offsets.push(match.index);
        widths.push(match[0].length);
      }
    }
  }
  return { chars, offsets, widths };
}

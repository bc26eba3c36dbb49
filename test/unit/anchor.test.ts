import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeTextQuote, findTextQuote, SELECTOR_CONTEXT } from '../../functions/core/article/anchor';
import { readerHtml } from '../../functions/core/article/sanitize';

const RUNS = { numRuns: 300, seed: Number(process.env.FUZZ_SEED ?? 20261128) };

const TEXT = 'The tide came in. The tide went out.\n\nThe tide came in again, slower.';

describe('TextQuoteSelector', () => {
  it('finds the first occurrence of a quote with no context', () => {
    expect(findTextQuote(TEXT, { exact: 'The tide came in' })).toEqual({ start: 0, end: 16 });
  });

  it('tells repeated passages apart by their prefix and suffix', () => {
    const second = TEXT.lastIndexOf('The tide came in');
    const range = { start: second, end: second + 'The tide came in'.length };
    const selector = describeTextQuote(TEXT, range);
    expect(selector).toEqual({
      exact: 'The tide came in',
      prefix: TEXT.slice(second - SELECTOR_CONTEXT, second),
      suffix: ' again, slower.',
    });
    expect(findTextQuote(TEXT, selector)).toEqual(range);
    expect(findTextQuote(TEXT, { exact: 'The tide came in', suffix: ' again' })).toEqual(range);
  });

  it('disregards white space: a selection across blocks matches the kept text and the HTML text alike', () => {
    const kept = 'First paragraph ends here.\n\nSecond one starts here.';
    const htmlText = 'First paragraph ends here.Second one starts here.';
    const selection = 'ends here.\nSecond one';
    expect(findTextQuote(kept, { exact: selection, prefix: 'First paragraph ' })).toEqual({ start: 16, end: 38 });
    expect(findTextQuote(htmlText, { exact: selection, prefix: 'First paragraph ' })).toEqual({
      start: 16,
      end: 36,
    });
  });

  it('compares composed and decomposed accents as the same text', () => {
    const text = 'Die Bucht von Kiel\u0308 und Mu\u0308nchen';
    const range = findTextQuote(text, { exact: 'Kielü und München'.normalize('NFC').replace('Kielü', 'Kiel\u0308') });
    expect(range && text.slice(range.start, range.end)).toBe('Kiel\u0308 und Mu\u0308nchen');
    expect(findTextQuote('café au lait', { exact: 'cafe\u0301' })).toEqual({ start: 0, end: 4 });
  });

  it('is null for a quote or context the text does not hold, or a quote of white space', () => {
    expect(findTextQuote(TEXT, { exact: 'The tide came out' })).toBeNull();
    expect(findTextQuote(TEXT, { exact: 'The tide came in', prefix: 'nowhere ' })).toBeNull();
    expect(findTextQuote(TEXT, { exact: 'slower', suffix: ' still' })).toBeNull();
    expect(findTextQuote(TEXT, { exact: ' \n ' })).toBeNull();
    // The first passage has no text before it: a prefix cannot match there.
    expect(findTextQuote(TEXT, { exact: 'The tide came in. The tide', prefix: 'x' })).toBeNull();
  });

  it('finds again every passage it describes (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', 'é', '😀'), minLength: 1, maxLength: 80 }),
        fc.nat(),
        fc.nat(),
        (text, a, b) => {
          const [start, end] = [a % (text.length + 1), b % (text.length + 1)].sort((x, y) => x - y) as [number, number];
          // Selections begin and end on characters, not halves of a surrogate pair or on white space.
          const exact = text.slice(start, end);
          fc.pre(exact.trim() !== '' && exact === exact.trim() && exact.isWellFormed());
          fc.pre(text.slice(0, start).isWellFormed());
          const found = findTextQuote(text, describeTextQuote(text, { start, end }));
          expect(found).toEqual({ start, end });
        },
      ),
      RUNS,
    );
  });
});

describe('the reader marks highlights', () => {
  const html =
    '<h2>Tides</h2><p>The tide came in. The tide went out.</p><p>The tide came in again, <em>slower</em> &amp; calmer.</p>';

  it('wraps the passage, split where it crosses elements, the first piece named by the highlight', () => {
    const { html: marked, found } = readerHtml(html, [
      { id: 'h1', selector: { exact: 'in again, slower &', prefix: 'went out. The tide came ' } },
    ]);
    expect([...found]).toEqual(['h1']);
    expect(marked).toBe(
      '<h2>Tides</h2><p>The tide came in. The tide went out.</p><p>The tide came <mark class="highlight" data-highlight="h1" id="hl-h1">in again, </mark><em><mark class="highlight" data-highlight="h1">slower</mark></em> <mark class="highlight" data-highlight="h1">&amp;</mark> calmer.</p>',
    );
  });

  it('marks overlapping highlights without nesting marks, each piece named by the latest to start', () => {
    const { html: marked, found } = readerHtml('<p>one two three four</p>', [
      { id: 'a', selector: { exact: 'one two three' } },
      { id: 'b', selector: { exact: 'three four' } },
    ]);
    expect([...found]).toEqual(['a', 'b']);
    expect(marked).toBe(
      '<p><mark class="highlight" data-highlight="a" id="hl-a">one two </mark><mark class="highlight" data-highlight="b" id="hl-b">three four</mark></p>',
    );
  });

  it('marks a passage whose surroundings changed where they agree best, never one the page lost', () => {
    const changed = '<p>The tide came in. Gulls rose.</p><p>The tide came in. By evening the flats were gone.</p>';
    const selector = { exact: 'The tide came in.', prefix: 'slowly.', suffix: ' By evening the sands were gone.' };
    expect(
      findTextQuote('The tide came in. Gulls rose. The tide came in. By evening the flats were gone.', selector),
    ).toBeNull();
    const { html: marked, found } = readerHtml(changed, [{ id: 'e', selector }]);
    expect([...found]).toEqual(['e']);
    expect(marked).toContain(
      '<p><mark class="highlight" data-highlight="e" id="hl-e">The tide came in.</mark> By evening',
    );
    expect(readerHtml(changed, [{ id: 'x', selector: { ...selector, exact: 'The tide went out.' } }]).found.size).toBe(
      0,
    );
  });

  it('answers which highlights are not in this copy, and leaves the HTML as it was for them', () => {
    const { html: marked, found } = readerHtml(html, [{ id: 'gone', selector: { exact: 'a sentence since removed' } }]);
    expect(found.size).toBe(0);
    expect(marked).toBe(html);
  });

  it('escapes the text it marks, so a quote of markup stays text', () => {
    const { html: marked } = readerHtml('<p>Write &lt;script&gt; tags.</p>', [
      { id: 'x', selector: { exact: '<script>' } },
    ]);
    expect(marked).toBe(
      '<p>Write <mark class="highlight" data-highlight="x" id="hl-x">&lt;script&gt;</mark> tags.</p>',
    );
  });

  it('points kept images at the page’s own origin', () => {
    const image = 'https://gleaner.example/articles/0f8fad5b-d9cb-469f-a165-70867728950e/images/'.concat(
      'a'.repeat(64),
      '.png',
    );
    expect(readerHtml(`<p><img src="${image}" alt="A"></p>`).html).toBe(
      `<p><img src="${image.replace('https://gleaner.example', '')}" alt="A" /></p>`,
    );
  });
});

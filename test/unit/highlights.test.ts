import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  highlightEntries,
  highlightsOfBody,
  rewriteHighlight,
  textFragmentUrl,
} from '../../functions/core/save/highlights';
import { appendHighlight, buildNoteBody } from '../../functions/core/save/note-body';

const RUNS = { numRuns: 300, seed: Number(process.env.FUZZ_SEED ?? 20261123) };

describe('text fragment links', () => {
  it('point at the start of the quote, percent-encoding what the directive syntax reserves', () => {
    // The URL Fragment Text Directives spec's own examples of what must be encoded: `-`, `&` and `,`.
    expect(textFragmentUrl('https://example.com/a', 'An example text fragment')).toBe(
      'https://example.com/a#:~:text=An%20example%20text%20fragment',
    );
    expect(textFragmentUrl('https://example.com/a', 'first-class, fast & small')).toBe(
      'https://example.com/a#:~:text=first%2Dclass%2C%20fast%20%26%20small',
    );
    expect(textFragmentUrl('https://example.com/a', 'one two three four five six seven eight nine ten')).toBe(
      'https://example.com/a#:~:text=one%20two%20three%20four%20five%20six%20seven%20eight',
    );
    expect(textFragmentUrl('https://example.com/a#section', 'ünïcode\nlines')).toBe(
      'https://example.com/a#section:~:text=%C3%BCn%C3%AFcode%20lines',
    );
    expect(textFragmentUrl('https://example.com/a', '   ')).toBe('https://example.com/a');
  });
});

describe('highlights in a note body', () => {
  it('are the quotes, each with the comment after it, and never the description or the source line', () => {
    const first = buildNoteBody({
      description: 'About queues.',
      title: 'Queues',
      url: 'https://example.com/q',
      selection: 'Queues absorb\nbursts.',
      comment: 'Key idea #queues',
    });
    const body = appendHighlight(appendHighlight(first, { selection: 'Retries need idempotency.', comment: null }), {
      selection: null,
      comment: 'A comment alone',
    });
    expect(highlightsOfBody(body)).toEqual([
      { quote: 'Queues absorb\nbursts.', comment: 'Key idea #queues' },
      { quote: 'Retries need idempotency.', comment: 'A comment alone' },
    ]);
    expect(
      highlightsOfBody(
        buildNoteBody({
          description: null,
          title: 't',
          url: 'https://example.com/',
          selection: null,
          comment: 'no quote',
        }),
      ),
    ).toEqual([]);
  });

  it('read back every highlight a body was built from', () => {
    const text = fc
      .string({ minLength: 1, maxLength: 60 })
      .filter((value) => value.trim() !== '' && !/^\s*>|\n\s*\n/.test(value));
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            selection: text,
            comment: fc.option(
              text.filter((value) => !value.trimStart().startsWith('Source: ')),
              { nil: null },
            ),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        (saves) => {
          const [first, ...rest] = saves;
          let body = buildNoteBody({ description: null, title: 'T', url: 'https://example.com/', ...first! });
          for (const save of rest) body = appendHighlight(body, save);
          const found = highlightsOfBody(body);
          expect(found.map((highlight) => highlight.quote)).toEqual(
            saves.map((save) =>
              save.selection
                .replace(/\r\n?/g, '\n')
                .trim()
                .split('\n')
                .map((line) => line.trimEnd())
                .join('\n')
                .trim(),
            ),
          );
        },
      ),
      RUNS,
    );
  });
});

describe('highlight entries', () => {
  it('are titled by the page, carry the quote and comment, link to the quote and are dated when saved', () => {
    const note = {
      id: 'n1',
      title: 'Queues',
      body: 'ignored',
      tags: ['q'],
      url: 'https://example.com/q',
      updated: '2026-11-22T10:00:00Z',
      created: '2026-11-20T10:00:00Z',
    };
    const [entry] = highlightEntries(
      [note],
      [
        {
          id: 'h1',
          noteId: 'n1',
          userId: 'u',
          quote: 'Queues absorb bursts.',
          comment: 'Key',
          saved: '2026-11-21T10:00:00Z',
        },
      ],
      50,
    );
    expect(entry).toEqual({
      id: 'h1',
      title: 'Queues',
      body: '> Queues absorb bursts.\n\nKey',
      tags: ['q'],
      url: 'https://example.com/q#:~:text=Queues%20absorb%20bursts.',
      updated: '2026-11-21T10:00:00Z',
      created: '2026-11-21T10:00:00Z',
    });
    expect(
      highlightEntries(
        [],
        [{ id: 'h2', noteId: 'gone', userId: 'u', quote: 'q', comment: null, saved: '2026-11-21T10:00:00Z' }],
        50,
      ),
    ).toEqual([]);
  });
});

describe('one highlight rewritten in a note body', () => {
  const body = [
    'Source: [Tides](https://example.com/tides)',
    '> The tide came in.',
    'First thought #sea',
    '> The tide went out.',
    '> The tide came in.',
    'First thought #sea',
    'A comment saved alone',
  ].join('\n\n');
  const records = [
    { id: 'a', quote: 'The tide came in.', comment: 'First thought #sea' },
    { id: 'b', quote: 'The tide went out.', comment: null },
    { id: 'c', quote: 'The tide came in.', comment: 'First thought #sea' },
  ];

  it('changes the comment of the highlight at its own place among identical ones', () => {
    expect(rewriteHighlight(body, records, 'c', { comment: 'Second look' })).toBe(
      body.replace(/First thought #sea\n\nA comment/, 'Second look\n\nA comment'),
    );
    expect(rewriteHighlight(body, records, 'a', { comment: null })).toBe(
      body.replace(
        '> The tide came in.\n\nFirst thought #sea\n\n> The tide went',
        '> The tide came in.\n\n> The tide went',
      ),
    );
  });

  it('gives a highlight without a comment one, below its quote and above what follows', () => {
    expect(rewriteHighlight(body, records, 'b', { comment: 'Low water\r\nnow' })).toBe(
      body.replace('> The tide went out.', '> The tide went out.\n\nLow water\nnow'),
    );
  });

  it('takes a highlight out with its comment, and leaves a comment saved alone', () => {
    expect(rewriteHighlight(body, records, 'c', null)).toBe(
      body.replace('\n\n> The tide came in.\n\nFirst thought #sea\n\nA comment', '\n\nA comment'),
    );
    expect(rewriteHighlight(body, records, 'b', null)).toBe(body.replace('> The tide went out.\n\n', ''));
    const last = 'Source: [T](https://e.com)\n\n> Only one.';
    expect(rewriteHighlight(last, [{ id: 'x', quote: 'Only one.', comment: null }], 'x', null)).toBe(
      'Source: [T](https://e.com)',
    );
  });

  it('is null when the body does not hold the highlight, or when the id is not one of them', () => {
    expect(rewriteHighlight(body, [{ id: 'z', quote: 'Not here', comment: null }], 'z', null)).toBeNull();
    expect(rewriteHighlight(body, records, 'nope', null)).toBeNull();
    // A quote that is only the start of a longer quoted paragraph is not that highlight.
    expect(
      rewriteHighlight(
        '> The tide came in.\n> And stayed.',
        [{ id: 'p', quote: 'The tide came in.', comment: null }],
        'p',
        null,
      ),
    ).toBeNull();
  });
});

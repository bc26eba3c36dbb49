import { describe, expect, it } from 'vitest';
import {
  APPEND_RECORD_BYTES,
  appendHighlight,
  buildNoteBody,
  endsWithParagraph,
  insertDescription,
  NOTE_BODY_MAX_BYTES,
  NOTE_STORED_MAX_BYTES,
  NoteBody,
  quote,
  sameHighlight,
  sourceLine,
} from '../../functions/core/save/note-body';
import { markdownToPlainText } from '../../functions/core/text/markdown-text';

const page = { title: 'A Page', url: 'https://x.test/a' };
const source = 'Source: [A Page](https://x.test/a)';

/** Splits a source line back into its link text and destination, undoing the title's escapes. */
function parseSourceLink(line: string): { text: string; destination: string } | null {
  const match = /^Source: \[((?:\\[\\[\]]|[^\\[\]])*)\]\(([^()\s<>]*)\)$/.exec(line);
  return match ? { text: match[1]!.replace(/\\([\\[\]])/g, '$1'), destination: match[2]! } : null;
}

describe('buildNoteBody', () => {
  it('orders description, source line, quoted selection and comment, one blank line apart', () => {
    const body = buildNoteBody({
      ...page,
      description: 'About things.',
      selection: 'line one\nline two',
      comment: 'My take #tag',
    });
    expect(body).toBe(`About things.\n\n${source}\n\n> line one\n> line two\n\nMy take #tag`);
  });

  describe('omits missing parts without leaving extra blank lines', () => {
    it.each([
      [{ description: null, selection: 'q', comment: 'c' }, `${source}\n\n> q\n\nc`],
      [{ description: 'd', selection: null, comment: 'c' }, `d\n\n${source}\n\nc`],
      [{ description: 'd', selection: 'q', comment: null }, `d\n\n${source}\n\n> q`],
      [{ description: null, selection: null, comment: null }, source],
      [{ description: '', selection: '', comment: '' }, source],
      [{ description: '  \n ', selection: null, comment: null }, source],
    ])('%j', (parts, expected) => {
      expect(buildNoteBody({ ...page, ...parts })).toBe(expected);
    });
  });

  it('normalises line endings and surrounding white space of the comment', () => {
    expect(buildNoteBody({ ...page, description: null, selection: null, comment: '\r\n  first\r\nsecond\r\n' })).toBe(
      `${source}\n\nfirst\nsecond`,
    );
  });
});

describe('quote', () => {
  it.each([
    ['single line', '> single line'],
    ['one\ntwo', '> one\n> two'],
    ['one\r\ntwo\r\n\r\nthree', '> one\n> two\n>\n> three'],
    ['one\rtwo', '> one\n> two'],
    ['one\n   \ntwo', '> one\n>\n> two'],
    ['\n\n  padded  \n\n', '> padded'],
    ['trailing   \n  indented', '> trailing\n>   indented'],
  ])('%j → %j', (selection, expected) => {
    expect(quote(selection)).toBe(expected);
  });

  it('quotes every line of a long selection, so Markdown renders a single blockquote', () => {
    const lines = quote('a\n\nb\r\nc\n\n\nd').split('\n');
    expect(lines.every((line) => line === '>' || line.startsWith('> '))).toBe(true);
  });
});

describe('sourceLine', () => {
  it('links the title to the URL', () => {
    expect(sourceLine('A Page', 'https://x.test/a')).toBe(source);
  });

  it('collapses white space in the title to single spaces', () => {
    expect(sourceLine('  A\n  multi-line \t title ', 'https://x.test/')).toBe(
      'Source: [A multi-line title](https://x.test/)',
    );
  });

  describe('escapes the title so the link text stays intact', () => {
    it.each(['Arrays [and] lists', 'C:\\path\\to', 'ends with \\', '] opening [', '[[wiki]]', 'back\\]slash'])(
      '%j',
      (title) => {
        expect(parseSourceLink(sourceLine(title, 'https://x.test/'))).toEqual({
          text: title,
          destination: 'https://x.test/',
        });
      },
    );
  });

  describe('encodes characters that would end the link destination', () => {
    it.each([
      ['https://en.wikipedia.test/wiki/Foo_(bar)', 'https://en.wikipedia.test/wiki/Foo_%28bar%29'],
      ['https://x.test/a b', 'https://x.test/a%20b'],
      ['https://x.test/a\tb', 'https://x.test/a%09b'],
      ['https://x.test/<a>', 'https://x.test/%3Ca%3E'],
      ['https://x.test/((x))', 'https://x.test/%28%28x%29%29'],
    ])('%s → %s', (url, destination) => {
      expect(parseSourceLink(sourceLine('T', url))).toEqual({ text: 'T', destination });
    });
  });

  it('leaves an already valid URL untouched', () => {
    const url = 'https://x.test/a%20b/c?d=e&f=%28g%29#h';
    expect(sourceLine('T', url)).toBe(`Source: [T](${url})`);
  });
});

describe('appendHighlight', () => {
  const body = `${source}\n\n> first\n\nfirst comment`;

  it('appends the quote and then the comment after the existing body', () => {
    expect(appendHighlight(body, { selection: 'second', comment: 'second comment' })).toBe(
      `${body}\n\n> second\n\nsecond comment`,
    );
  });

  it('appends only the parts given', () => {
    expect(appendHighlight(body, { selection: 'a\r\nb', comment: null })).toBe(`${body}\n\n> a\n> b`);
    expect(appendHighlight(body, { selection: null, comment: 'just a comment' })).toBe(`${body}\n\njust a comment`);
  });

  it('keeps exactly one blank line between the old body and the new highlight', () => {
    expect(appendHighlight(`${body}\n\n\n  `, { selection: 'x', comment: null })).toBe(`${body}\n\n> x`);
  });

  it('with nothing to append, returns the body without trailing white space', () => {
    expect(appendHighlight(`${body}\n\n`, { selection: null, comment: null })).toBe(body);
  });
});

describe('insertDescription', () => {
  it('puts the description above a body that starts with its source line', () => {
    const body = `${source}\n\n> q`;
    expect(insertDescription(body, 'About things.')).toBe(`About things.\n\n${body}`);
  });

  it.each([`Notes of my own\n\n${source}`, `About things.\n\n${source}`, `> q\n\n${source}`])(
    'leaves a body with text above the source line alone: %j',
    (body) => {
      expect(insertDescription(body, 'About things.')).toBeNull();
    },
  );
});

describe('sameHighlight', () => {
  it.each([
    ['quoted text', 'quoted text'],
    ['quoted text', '  quoted text \n'],
    ['line one\r\nline two', 'line one\nline two'],
    ['line one\rline two', '\r\nline one\nline two\r\n'],
  ])('%j and %j are the same highlight', (a, b) => {
    expect(sameHighlight(a, b)).toBe(true);
  });

  it.each([
    ['quoted text', 'quoted  text'],
    ['quoted text', 'Quoted text'],
    ['line one\nline two', 'line one\n\nline two'],
    [null, 'x'],
    ['x', undefined],
    ['', ''],
    [null, null],
  ])('%j and %j are not', (a, b) => {
    expect(sameHighlight(a, b)).toBe(false);
  });
});

describe('endsWithParagraph', () => {
  const body = `${source}\n\n> q\n\nworth a read\n`;

  it.each([['worth a read'], ['  worth a read \r\n'], ['> q\n\nworth a read']])(
    'true when the body ends with %j',
    (paragraph) => {
      expect(endsWithParagraph(body, paragraph)).toBe(true);
    },
  );

  it.each([['something else'], ['worth a read later'], [null], ['']])('false for %j', (paragraph) => {
    expect(endsWithParagraph(body, paragraph)).toBe(false);
  });

  it.each([['read'], ['a read'], ['q\n\nworth a read']])(
    'false for %j, which ends the last paragraph but is not all of it',
    (paragraph) => {
      expect(endsWithParagraph(body, paragraph)).toBe(false);
    },
  );
});

describe('NoteBody', () => {
  const note = { body: '', title: 'A Page', url: 'https://x.test/a', comment: null, tags: ['a'], lastHighlight: null };
  /** Whether a note with `body` fits, from an empty one not read from storage. */
  const fits = (body: string) => NoteBody.of(note).refusal({ ...note, body }) === null;

  it('accepts a body of exactly NOTE_BODY_MAX_BYTES bytes and rejects one byte more', () => {
    expect(fits('a'.repeat(NOTE_BODY_MAX_BYTES))).toBe(true);
    expect(NoteBody.of(note).refusal({ ...note, body: 'a'.repeat(NOTE_BODY_MAX_BYTES + 1) })).toBe('body');
  });

  it('counts UTF-8 bytes, not characters', () => {
    const twoByteChars = 'é'.repeat(NOTE_BODY_MAX_BYTES / 2);
    expect(fits(twoByteChars)).toBe(true);
    expect(fits(`${twoByteChars}a`)).toBe(false);
    expect(fits('😀'.repeat(NOTE_BODY_MAX_BYTES / 4 + 1))).toBe(false);
  });

  it("refuses a change that would take the note as stored past DynamoDB's item limit, though its body is within its own", () => {
    // A note read from storage near its item's limit (appends' records take room beside the body's text).
    const stored = { ...note, body: 'a'.repeat(200_000), storedBytes: NOTE_STORED_MAX_BYTES - 1000 };
    const body = NoteBody.of(stored);
    expect(body.refusal({ ...stored, body: `${stored.body}\n\n${'b'.repeat(500)}` }, 1)).toBeNull();
    // Each append's record counts beside its text.
    const justFits = 1000 - APPEND_RECORD_BYTES - 2;
    expect(body.refusal({ ...stored, body: `${stored.body}\n\n${'b'.repeat(justFits)}` }, 1)).toBeNull();
    expect(body.refusal({ ...stored, body: `${stored.body}\n\n${'b'.repeat(justFits + 1)}` }, 1)).toBe('stored');
    // An edit of the note's other fields counts too: a longer comment, more tags, the last highlight.
    expect(body.refusal({ ...stored, comment: 'c'.repeat(999) })).toBeNull();
    expect(body.refusal({ ...stored, comment: 'c'.repeat(1001) })).toBe('stored');
    expect(body.refusal({ ...stored, lastHighlight: 'q'.repeat(1001) })).toBe('stored');
    // A change that makes it smaller fits, however full it is.
    expect(body.refusal({ ...stored, title: '' })).toBeNull();
  });
});

describe('source line titles with Markdown characters', () => {
  it('keeps emphasis and code markers literal, so the feed text shows the title as written', () => {
    const line = sourceLine('A *bold* snake_case `code` title', 'https://x.test/a');
    expect(line).toBe('Source: [A \\*bold\\* snake\\_case \\`code\\` title](https://x.test/a)');
    expect(markdownToPlainText(line)).toBe('Source: A *bold* snake_case `code` title (https://x.test/a)');
  });
});

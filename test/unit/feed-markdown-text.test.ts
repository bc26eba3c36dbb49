import { describe, expect, it } from 'vitest';
import { buildNoteBody } from '../../functions/core/save/note-body';
import { markdownToPlainText } from '../../functions/core/text/markdown-text';

describe('markdownToPlainText', () => {
  it('turns a saved note body into plain text', () => {
    const body = [
      'A page description paragraph (optional)',
      '',
      'Source: [Page title with \\[escaped\\] brackets](https://example.com/a%28b%29?x=1)',
      '',
      '> first highlighted line',
      '> second line',
      '',
      'A comment paragraph with #tags',
      '',
      '> another highlight appended later',
      '',
      'its comment',
    ].join('\n');
    expect(markdownToPlainText(body)).toBe(
      [
        'A page description paragraph (optional)',
        '',
        'Source: Page title with [escaped] brackets (https://example.com/a%28b%29?x=1)',
        '',
        'first highlighted line',
        'second line',
        '',
        'A comment paragraph with #tags',
        '',
        'another highlight appended later',
        '',
        'its comment',
      ].join('\n'),
    );
  });

  it('reads back what the save path wrote: title brackets and backslashes, encoded URL, quoted selection', () => {
    const body = buildNoteBody({
      description: null,
      title: 'Arrays [part 2] \\ C:\\tmp',
      url: 'https://en.example/wiki/Foo_(bar) x',
      selection: 'line one\n\nline two',
      comment: 'why #reading',
    });
    expect(markdownToPlainText(body)).toBe(
      'Source: Arrays [part 2] \\ C:\\tmp (https://en.example/wiki/Foo_%28bar%29%20x)\n\nline one\n\nline two\n\nwhy #reading',
    );
  });

  it('keeps hashtags, including at the start of a line, but drops heading markers', () => {
    expect(markdownToPlainText('#tag at the start\nand #another_one inside')).toBe(
      '#tag at the start\nand #another_one inside',
    );
    expect(markdownToPlainText('# Title\n## Sub heading ##\n### C#')).toBe('Title\nSub heading\nC#');
  });

  it('drops nested quote markers and keeps quoted paragraphs apart', () => {
    expect(markdownToPlainText('> outer\n> > inner\n>> tight\n>\n> after a quoted blank')).toBe(
      'outer\ninner\ntight\n\nafter a quoted blank',
    );
  });

  it('resolves backslash escapes', () => {
    expect(markdownToPlainText('\\[not a link\\](x) \\*not em\\* \\_ \\# \\\\ \\`')).toBe(
      '[not a link](x) *not em* _ # \\ `',
    );
  });

  it('strips emphasis and code-span markers but keeps literal * and _', () => {
    expect(markdownToPlainText('**bold**, *em*, _em_, __strong__, ***both***, `code *kept*`')).toBe(
      'bold, em, em, strong, both, code *kept*',
    );
    expect(markdownToPlainText('snake_case_name, 2 * 3 = 6, a * b, file_*.txt')).toBe(
      'snake_case_name, 2 * 3 = 6, a * b, file_*.txt',
    );
    expect(markdownToPlainText('an *unclosed emphasis and a lone ` backtick')).toBe(
      'an *unclosed emphasis and a lone ` backtick',
    );
  });

  it('formats links and autolinks as text (url), without repeating a URL used as text', () => {
    expect(markdownToPlainText('[**Bold** title](https://a.example/x_y "Title")')).toBe(
      'Bold title (https://a.example/x_y)',
    );
    expect(markdownToPlainText('[https://a.example](https://a.example)')).toBe('https://a.example');
    expect(markdownToPlainText('[](https://a.example/empty)')).toBe('https://a.example/empty');
    expect(markdownToPlainText('![a diagram](https://a.example/d.png)')).toBe('a diagram (https://a.example/d.png)');
    expect(markdownToPlainText('<https://a.example/a_b_> and <me@a.example>')).toBe(
      'https://a.example/a_b_ and me@a.example',
    );
    expect(markdownToPlainText('[nested [brackets]](https://a.example/p(q)r)')).toBe(
      'nested [brackets] (https://a.example/p(q)r)',
    );
  });

  it('leaves bare URLs alone', () => {
    expect(markdownToPlainText('see https://a.example/_x_/y*z* and *https://b.example*.')).toBe(
      'see https://a.example/_x_/y*z* and https://b.example.',
    );
  });

  it('keeps fenced code verbatim and drops the fences', () => {
    expect(markdownToPlainText('```ts\n# not a heading *x*\n> not a quote\n```\nafter')).toBe(
      '# not a heading *x*\n> not a quote\n\nafter',
    );
    expect(markdownToPlainText('> ```\n> code in a quote\n> ```')).toBe('code in a quote');
  });

  it('keeps list markers as plain text', () => {
    expect(markdownToPlainText('- one\n* two\n1. three')).toBe('- one\n* two\n1. three');
  });

  it('normalises line endings and blank-line runs, and trims the ends', () => {
    expect(markdownToPlainText('\r\n\r\n  first\r\nline  \r\n\r\n\r\n\r\nsecond\r\r')).toBe('first\nline\n\nsecond');
    expect(markdownToPlainText('')).toBe('');
    expect(markdownToPlainText(' \n>\n#\n')).toBe('');
  });

  it('is stable on its own output', () => {
    const once = markdownToPlainText('Source: [A \\[b\\]](https://a.example)\n\n> **quoted**\n\n#tag');
    expect(markdownToPlainText(once)).toBe(once);
  });

  it('never throws and stays fast on hostile input', () => {
    const hostile = [
      '['.repeat(100_000),
      '[x]('.repeat(25_000),
      '`'.repeat(50_000),
      '#'.repeat(100_000),
      `# ${' '.repeat(100_000)}x`,
      `http://${'.'.repeat(100_000)}a`,
      '*a _'.repeat(25_000),
      '> '.repeat(50_000),
      '\\'.repeat(100_001),
      '\uD800\uDC00\uD800 \u0000\u202E'.repeat(20_000),
    ];
    const started = Date.now();
    for (const input of hostile) expect(typeof markdownToPlainText(input)).toBe('string');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('never throws on random Markdown-ish input', () => {
    const alphabet = [
      '[',
      ']',
      '(',
      ')',
      '<',
      '>',
      '*',
      '_',
      '`',
      '\\',
      '#',
      '!',
      ' ',
      '\n',
      'a',
      'h',
      'ttp://',
      '~~~',
      '```',
    ];
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 500; run++) {
      const input = Array.from({ length: 80 }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      expect(() => markdownToPlainText(input)).not.toThrow();
    }
  });
});

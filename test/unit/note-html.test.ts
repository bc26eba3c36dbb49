import * as fc from 'fast-check';
import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { appendHighlight, buildNoteBody } from '../../functions/core/save/note-body';
import { ALLOWED_ELEMENTS, noteHtml } from '../../functions/core/text/note-html';

const RUNS = { numRuns: 500, seed: Number(process.env.FUZZ_SEED ?? 20261123) };

describe('noteHtml', () => {
  it('renders a saved note: the description and comments as paragraphs, the source as a link, highlights as quotes', () => {
    const first = buildNoteBody({
      description: 'Why queues keep services standing.',
      title: 'Queues absorb bursts',
      url: 'https://example.com/queues',
      selection: 'A queue turns a spike\ninto a backlog.',
      comment: 'The *key* idea. #queues',
    });
    const body = appendHighlight(first, { selection: 'Retries need idempotency.', comment: null });
    expect(noteHtml(body)).toBe(
      [
        '<p>Why queues keep services standing.</p>',
        '<p>Source: <a href="https://example.com/queues">Queues absorb bursts</a></p>',
        '<blockquote>\n<p>A queue turns a spike<br>\ninto a backlog.</p>\n</blockquote>',
        '<p>The <em>key</em> idea. #queues</p>',
        '<blockquote>\n<p>Retries need idempotency.</p>\n</blockquote>',
      ].join('\n'),
    );
  });

  it('keeps a title with Markdown characters literal in the source link', () => {
    const body = buildNoteBody({
      description: null,
      title: 'On [brackets] and *stars*',
      url: 'https://example.com/a_(b)',
      selection: null,
      comment: null,
    });
    expect(noteHtml(body)).toBe('<p>Source: <a href="https://example.com/a_%28b%29">On [brackets] and *stars*</a></p>');
  });

  it('formats inline Markdown: emphasis, strong, code, strike-through, http(s) and mailto links', () => {
    expect(noteHtml('*a* **b** `c` ~~d~~ [e](https://e.example/) <https://f.example/> [g](mailto:g@example.com)')).toBe(
      '<p><em>a</em> <strong>b</strong> <code>c</code> <s>d</s> <a href="https://e.example/">e</a> <a href="https://f.example/">https://f.example/</a> <a href="mailto:g@example.com">g</a></p>',
    );
  });

  it('keeps everything else as text: raw HTML, other link schemes, images, headings, lists, code blocks, entities', () => {
    const html = noteHtml(
      [
        '<script>alert(1)</script> <img src=x onerror=alert(2)> <a href="https://x.example/" onclick="alert(3)">x</a>',
        '[js](javascript:alert(4)) [data](data:text/html,<b>x</b>) [vb](vbscript:msgbox) [file](file:///etc/passwd)',
        '![image](https://example.com/i.png)',
        '# Heading\n- item\n1. item',
        '    indented code',
        'AT&amp;T &lt;b&gt; &nbsp;',
      ].join('\n\n'),
    );
    const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
    expect(new Set([...document.body.querySelectorAll('*')].map((element) => element.localName))).toEqual(
      new Set(['p', 'a', 'br']),
    );
    expect([...document.body.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual([
      'https://example.com/i.png',
    ]);
    expect(document.body.textContent).toContain('<script>alert(1)</script>');
    expect(document.body.textContent).toContain('[js](javascript:alert(4))');
    expect(document.body.textContent).toContain('# Heading\n- item\n1. item');
    expect(document.body.textContent).toContain('AT&amp;T &lt;b&gt; &nbsp;');
  });

  it('never throws and emits only allow-listed elements, attributes and link schemes, whatever the note holds', () => {
    const markup = fc.constantFrom(
      '<',
      '>',
      '&',
      '"',
      "'",
      '`',
      '*',
      '_',
      '~~',
      '[',
      ']',
      '(',
      ')',
      '!',
      '>',
      '\n',
      '\n\n',
      '\\',
      'javascript:',
      'https://x.example/',
      '<script>',
      'onerror=',
      '&#x3C;',
      ']]>',
      ' ',
    );
    const note = fc
      .array(fc.oneof(markup, fc.string({ unit: 'binary', maxLength: 8 })), { maxLength: 60 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(note, (body) => {
        const html = noteHtml(body);
        expect(html).not.toContain(']]>');
        const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
        for (const element of document.body.querySelectorAll('*')) {
          expect(Object.keys(ALLOWED_ELEMENTS)).toContain(element.localName);
          for (const attribute of element.getAttributeNames())
            expect(ALLOWED_ELEMENTS[element.localName]).toContain(attribute);
          const href = element.getAttribute('href');
          if (href !== null) expect(['http:', 'https:', 'mailto:']).toContain(new URL(href).protocol);
        }
      }),
      RUNS,
    );
  });
});

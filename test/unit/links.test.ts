import { describe, expect, it } from 'vitest';
import {
  CONTEXT_MAX_LENGTH,
  linksOfNote,
  noteKeys,
  parseLinks,
  resolveLinks,
  titleKey,
  urlKey,
} from '../../functions/core/links/links';

describe('links in a note', () => {
  it('finds [[titles]] and URLs in the order written, each once, with the sentence around it', () => {
    const text =
      'Intro line. Compare with [[Queues in Practice]] before lunch. Then read https://Example.com/a?utm_source=x#top.\n\n> A quote citing [[queues  in practice|the queue note]] again.';
    expect(parseLinks(text)).toEqual([
      {
        kind: 'title',
        key: 'title:queues in practice',
        target: 'Queues in Practice',
        context: 'Compare with Queues in Practice before lunch.',
      },
      {
        kind: 'url',
        key: 'url:https://example.com/a',
        target: 'https://Example.com/a?utm_source=x#top',
        context: 'Then read https://Example.com/a?utm_source=x#top.',
      },
    ]);
  });

  it('normalises titles and URLs as the save path does', () => {
    expect(titleKey('  Ｑueues\tIN  practice ')).toBe('title:queues in practice');
    expect(titleKey('   ')).toBeNull();
    expect(urlKey('HTTPS://EXAMPLE.com:443/a?fbclid=1&b=2#x')).toBe('url:https://example.com/a?b=2');
    expect(urlKey('ftp://example.com/')).toBeNull();
    expect(noteKeys({ title: 'Queues', url: 'https://example.com/q' })).toEqual([
      'title:queues',
      'url:https://example.com/q',
    ]);
  });

  it('keeps URLs whole inside markup and parentheses, and drops the punctuation after them', () => {
    const links = parseLinks(
      'See (https://en.wikipedia.org/wiki/Queue_(abstract_data_type)), [docs](https://example.com/docs), or https://example.com/x.',
    );
    expect(links.map((link) => link.target)).toEqual([
      'https://en.wikipedia.org/wiki/Queue_(abstract_data_type)',
      'https://example.com/docs',
      'https://example.com/x',
    ]);
  });

  it("leaves out a note's links to itself: its source line and its own title", () => {
    const note = {
      id: 'n1',
      title: 'Queues',
      url: 'https://example.com/q',
      body: '> Queues absorb bursts.\n\nSee [[Dead letters]] and [[queues]].\n\nSource: [Queues](https://example.com/q)',
      comment: 'Also https://other.test/page',
    };
    expect(linksOfNote(note).map((link) => link.key)).toEqual(['title:dead letters', 'url:https://other.test/page']);
  });

  it('cuts a long sentence around its link', () => {
    const text = `${'word '.repeat(100)}[[Target]] ${'more '.repeat(100)}`;
    const [link] = parseLinks(text);
    expect(link!.context.length).toBeLessThanOrEqual(CONTEXT_MAX_LENGTH + 2);
    expect(link!.context).toContain('Target');
    expect(link!.context.startsWith('…')).toBe(true);
  });

  it('resolves by key, and an unresolved link stays, waiting for its target', () => {
    const links = parseLinks('[[Later note]] and [[Known]]');
    const resolved = resolveLinks(links, new Map([['title:known', { id: 'n2', title: 'Known' }]]));
    expect(resolved.map((link) => link.note)).toEqual([null, { id: 'n2', title: 'Known' }]);
    // Once a note with that title exists, the same link resolves to it.
    const later = resolveLinks(links, new Map([['title:later note', { id: 'n3', title: 'Later Note' }]]));
    expect(later[0]!.note).toEqual({ id: 'n3', title: 'Later Note' });
  });
});

import { describe, expect, it } from 'vitest';
import { parseNetscapeBookmarks, renderNetscapeBookmarks } from '../../functions/core/workspace/netscape-bookmarks';

const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
    <DT><H3 ADD_DATE="1600000000" PERSONAL_TOOLBAR_FOLDER="true">Reading List</H3>
    <DL><p>
        <DT><A HREF="https://a.example/?x=1&amp;y=2" ADD_DATE="1700000000" LAST_MODIFIED="1700000500" TAGS="AWS,#queues">Queues &lt;in practice&gt;</A>
        <DD>Why queues absorb bursts
        <DT><H3>Deep</H3>
        <DL><p>
            <dt><a href="https://b.example/">B</a>
        </DL><p>
        <DT><A HREF="javascript:alert(1)">bookmarklet</A>
    </DL><p>
    <DT><A HREF="https://c.example/" ADD_DATE="not a date"></A>
</DL><p>`;

describe('Netscape bookmark files', () => {
  it('reads links with their folders and TAGS= as tags, ADD_DATE, LAST_MODIFIED and the <DD> description', () => {
    expect(parseNetscapeBookmarks(file)).toEqual([
      {
        url: 'https://a.example/?x=1&y=2',
        title: 'Queues <in practice>',
        tags: ['reading-list', 'aws', 'queues'],
        added: new Date(1_700_000_000_000),
        updated: new Date(1_700_000_500_000),
        description: 'Why queues absorb bursts',
      },
      { url: 'https://b.example/', title: 'B', tags: ['reading-list', 'deep'], added: null, description: null },
      { url: 'javascript:alert(1)', title: 'bookmarklet', tags: ['reading-list'], added: null, description: null },
      { url: 'https://c.example/', title: null, tags: [], added: null, description: null },
    ]);
  });

  it('writes a file it reads back the same', () => {
    const entries = [
      {
        url: 'https://a.example/?q="x"&y=<1>',
        title: 'A & "B"',
        tags: ['one', 'two'],
        added: new Date(1_700_000_000_000),
        description: 'd <e>',
      },
      { url: 'https://b.example/', title: 'B', tags: [], added: null, description: null },
    ];
    expect(parseNetscapeBookmarks(renderNetscapeBookmarks(entries))).toEqual(entries);
  });

  it("carries an exported note's highlight times to the second, in order, a tie kept apart by a millisecond", () => {
    const body = 'Source: [A](https://a.example/)\n\n> first\n\nmy comment\n\n> second\n\n> third';
    const saved = ['2026-01-01T10:00:00.250Z', '2026-01-01T10:00:00.900Z', '2026-01-01T10:00:07.500Z'];
    const note = {
      body,
      updated: new Date('2026-01-01T10:00:07.000Z'),
      highlights: [
        { quote: 'first', comment: 'my comment', saved: new Date(saved[0]!) },
        { quote: 'second', comment: null, saved: new Date(saved[1]!) },
        { quote: 'third', comment: null, saved: new Date(saved[2]!) },
      ],
    };
    const html = renderNetscapeBookmarks([
      { url: 'https://a.example/', title: 'A', tags: [], added: null, description: null, note },
    ]);
    expect(html).toContain('HIGHLIGHT_DATES="1767261600,1767261600,1767261607"');
    const [read] = parseNetscapeBookmarks(html);
    expect(read!.note!.highlights).toEqual([
      { quote: 'first', comment: 'my comment', saved: new Date('2026-01-01T10:00:00.000Z') },
      { quote: 'second', comment: null, saved: new Date('2026-01-01T10:00:00.001Z') },
      { quote: 'third', comment: null, saved: new Date('2026-01-01T10:00:07.000Z') },
    ]);
    // A file whose times do not match its highlights (edited by hand) leaves them to the note's time.
    expect(parseNetscapeBookmarks(html.replace('1767261600,1767261600,', ''))[0]!.note!.highlights).toBeNull();
  });
});

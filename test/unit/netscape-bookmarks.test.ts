import { describe, expect, it } from 'vitest';
import { parseNetscapeBookmarks, renderNetscapeBookmarks } from '../../functions/core/workspace/netscape-bookmarks';

const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
    <DT><H3 ADD_DATE="1600000000" PERSONAL_TOOLBAR_FOLDER="true">Reading List</H3>
    <DL><p>
        <DT><A HREF="https://a.example/?x=1&amp;y=2" ADD_DATE="1700000000" TAGS="AWS,#queues">Queues &lt;in practice&gt;</A>
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
  it('reads links with their folders and TAGS= as tags, ADD_DATE and the <DD> description', () => {
    expect(parseNetscapeBookmarks(file)).toEqual([
      {
        url: 'https://a.example/?x=1&y=2',
        title: 'Queues <in practice>',
        tags: ['reading-list', 'aws', 'queues'],
        added: new Date(1_700_000_000_000),
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
});

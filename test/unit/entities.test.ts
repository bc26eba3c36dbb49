import { describe, expect, it } from 'vitest';
import { readBookmark } from '../../functions/adapters/dynamo/entities/bookmark';
import { itemBytes, MalformedItemError } from '../../functions/adapters/dynamo/entities/codec';
import { readFeed } from '../../functions/adapters/dynamo/entities/feed';
import { readHighlight } from '../../functions/adapters/dynamo/entities/highlight';
import { noteItem, readNote } from '../../functions/adapters/dynamo/entities/note';
import type { Note } from '../../functions/core/model';
import { APPEND_RECORD_BYTES } from '../../functions/core/save/note-body';

const note: Note = {
  id: 'n1',
  userId: 'u1',
  bookmarkId: 'b1',
  url: 'https://example.com/',
  title: 'Example',
  body: 'Source: [Example](https://example.com/)',
  comment: null,
  tags: ['a', 'b'],
  lastHighlight: null,
  created: '2026-01-01T00:00:00.000Z',
  updated: '2026-01-01T00:00:00.000Z',
  version: 1,
  archivedAt: null,
  starredAt: null,
};

describe('entity codecs', () => {
  it('read back the note they write, with its appends joined to the body and the bytes it takes', () => {
    const item = {
      ...noteItem(note),
      appended: [{ id: 'x', saved: note.created, text: '> more' }],
      appendIds: new Set(['x']),
    };
    const read = readNote(item);
    expect(read).toMatchObject({ ...note, body: `${note.body}\n\n> more` });
    expect(read.storedBytes).toBe(itemBytes(item));
    // The measure is not written back: the item holds the note's fields, not what a read measured.
    expect(noteItem(read)).not.toHaveProperty('storedBytes');
  });

  it('read legacy notes as the store always did (no tags, version or update time yet)', () => {
    const { tags: _tags, version: _version, updated: _updated, ...legacy } = noteItem(note);
    expect(readNote(legacy)).toMatchObject({ tags: [], version: 0, updated: null });
  });

  it('refuse a malformed item with an error naming its key and every wrong attribute, never undefined fields', () => {
    const malformed = { ...noteItem(note), tags: 'a,b', title: undefined };
    expect(() => readNote(malformed)).toThrow(MalformedItemError);
    expect(() => readNote(malformed)).toThrow(/NOTE#n1 NOTE is malformed: .*tags.*title|title.*tags/);
    expect(() => readBookmark({ pk: 'BOOKMARK#b', sk: 'BOOKMARK', id: 'b', userId: 'u' })).toThrow(
      /Bookmark item BOOKMARK#b BOOKMARK is malformed: noteId/,
    );
    expect(() => readHighlight({ pk: 'NOTE#n', sk: 'HL#1', id: 'h', noteId: 'n', userId: 'u', saved: 'x' })).toThrow(
      /quote/,
    );
    expect(() =>
      readFeed({ pk: 'FEED#f', sk: 'FEED', id: 'f', userId: 'u', title: 't', match: 'some', sharing: 'public' }),
    ).toThrow(/match/);
  });

  it("keep within NoteBody's allowance for what an append keeps beside its text", () => {
    const entry = (id: string) => ({ id, saved: '2026-11-28T02:30:00.000Z', text: '> quoted' });
    const one = { ...noteItem(note), appended: [entry(crypto.randomUUID())], appendIds: new Set(['a']) };
    const id = crypto.randomUUID();
    const two = { ...one, appended: [...one.appended, entry(id)], appendIds: new Set(['a', id]) };
    // The body's text grows by the entry's text and the blank line before it; the rest is the record.
    const record = itemBytes(two) - itemBytes(one) - Buffer.byteLength('\n\n> quoted');
    expect(record).toBeLessThanOrEqual(APPEND_RECORD_BYTES);
    expect(record).toBeGreaterThan(APPEND_RECORD_BYTES / 2);
  });

  it("count an item's bytes as DynamoDB does: names and UTF-8 values, numbers by digits, lists and maps with their overhead", () => {
    expect(itemBytes({ ab: 'é' })).toBe(2 + 2);
    expect(itemBytes({ n: 12345 })).toBe(1 + 4);
    expect(itemBytes({ l: ['ab', 'c'] })).toBe(1 + 3 + (2 + 1) + (1 + 1));
    expect(itemBytes({ m: { k: 'v' } })).toBe(1 + 3 + (1 + 1 + 1));
  });
});

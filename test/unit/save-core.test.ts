import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type SaveOutcome, saveBookmark } from '../../functions/core/save/save-bookmark';
import { parseSaveRequest } from '../../functions/core/save/save-request';
import { InMemoryBookmarkStore } from '../support/in-memory-bookmark-store';

/** The save use case over the store port kept in memory: the rules of a save, without a database. */

const userId = randomUUID();

function saver(noteCap = 1000) {
  const store = new InMemoryBookmarkStore(noteCap);
  const published: unknown[] = [];
  const ports = {
    store,
    enrichment: { publish: async (request: unknown) => void published.push(request) },
    newId: randomUUID,
    now: () => new Date('2026-11-25T12:00:00Z'),
    logger: { warn: () => {} },
  };
  const save = async (body: Record<string, unknown>, idempotency: { scope: string; key: string } | null = null) => {
    const parsed = parseSaveRequest(body);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    return saveBookmark(ports, { userId, request: parsed.request, siteIcon: null, idempotency });
  };
  return { store, published, save };
}

function saved(outcome: SaveOutcome) {
  if (outcome.kind !== 'saved') throw new Error(`expected a saved outcome, got ${outcome.kind}`);
  return outcome;
}

describe('the save core over an in-memory store', () => {
  it('makes a new URL a bookmark backed by one note, and asks for its enrichment', async () => {
    const { store, published, save } = saver();
    const outcome = saved(await save({ url: 'https://example.com/a', title: 'A', selection: 'First quote.' }));
    expect(outcome.isNewBookmark).toBe(true);
    expect(store.bookmarks.size).toBe(1);
    expect([...store.notes.values()]).toEqual([
      expect.objectContaining({
        id: outcome.bookmark.noteId,
        title: 'A',
        body: expect.stringContaining('> First quote.'),
      }),
    ]);
    expect(store.highlights.map((highlight) => highlight.quote)).toEqual(['First quote.']);
    expect(published).toEqual([{ bookmarkId: outcome.bookmark.id, scrapeDescription: true, fetchIcon: true }]);
  });

  it('appends a re-saved URL’s selection to its one note as another quote, below the first', async () => {
    const { store, save } = saver();
    const first = saved(await save({ url: 'https://example.com/a?utm_source=x', selection: 'One.' }));
    const again = saved(await save({ url: 'https://EXAMPLE.com/a#part', selection: 'Two.', append: true }));
    expect(again).toMatchObject({ isNewBookmark: false, selectionAppended: true });
    expect(again.bookmark.id).toBe(first.bookmark.id);
    expect(store.notes.size).toBe(1);
    const body = store.notes.get(first.bookmark.noteId)!.body;
    expect(body.indexOf('> One.')).toBeGreaterThanOrEqual(0);
    expect(body.indexOf('> Two.')).toBeGreaterThan(body.indexOf('> One.'));
    expect(store.highlights.map((highlight) => highlight.quote)).toEqual(['One.', 'Two.']);
  });

  it('does not append a client’s retry of the last selection twice without append: true', async () => {
    const { store, save } = saver();
    const first = saved(await save({ url: 'https://example.com/a', selection: 'Once.' }));
    const retry = saved(await save({ url: 'https://example.com/a', selection: 'Once.' }));
    expect(retry.selectionAppended).toBe(false);
    expect(store.notes.get(first.bookmark.noteId)!.body.match(/> Once\./g)).toHaveLength(1);
  });

  it('refuses a new note at the cap and still appends to a saved one', async () => {
    const { store, save } = saver(1);
    saved(await save({ url: 'https://example.com/kept' }));
    expect(await save({ url: 'https://example.com/new' })).toEqual({ kind: 'note-limit', used: 1, limit: 1 });
    expect(saved(await save({ url: 'https://example.com/kept', selection: 'More.' })).selectionAppended).toBe(true);
    expect(store.notes.size).toBe(1);
  });

  it('makes the comment’s hashtags tags, merged into the note’s on a re-save', async () => {
    const { store, save } = saver();
    const first = saved(await save({ url: 'https://example.com/t', comment: 'Read #Rust and #queues' }));
    expect(store.notes.get(first.bookmark.noteId)!.tags).toEqual(['rust', 'queues']);
    await save({ url: 'https://example.com/t', selection: 'Later.', comment: '#later #rust' });
    expect(store.notes.get(first.bookmark.noteId)!.tags).toEqual(['rust', 'queues', 'later']);
  });

  it('replays the first answer for a repeated Idempotency-Key and refuses the key with another body', async () => {
    const { store, save } = saver();
    const key = { scope: 'token-1', key: 'k1' };
    const first = saved(await save({ url: 'https://example.com/i', selection: 'Q.' }, key));
    expect(await save({ url: 'https://example.com/i', selection: 'Q.' }, key)).toEqual({ kind: 'replayed', first });
    expect(await save({ url: 'https://example.com/other' }, key)).toEqual({ kind: 'key-reused' });
    expect(store.bookmarks.size).toBe(1);
  });
});

import type { Bookmark, Highlight, Note } from '../../functions/core/model';
import type { IdempotencyClaim } from '../../functions/core/save/idempotency';
import { withAppended } from '../../functions/core/save/note-body';
import {
  type BookmarkStore,
  type CreateBookmarkOutcome,
  type KeyTaken,
  type NoteAppend,
  type NoteAppendOutcome,
  type NoteChange,
  NoteNotFoundError,
  type NoteUpdate,
  type RestoreOutcome,
  type SaveRecord,
} from '../../functions/core/save/save-bookmark';

/**
 * The save core's store port kept in memory, with the rules the DynamoDB store enforces by its
 * conditions: one bookmark per (user, normalised URL), the user's note cap, one answer per
 * Idempotency-Key, an append applied once per append id. For unit tests of the save use case.
 */
export class InMemoryBookmarkStore implements BookmarkStore {
  readonly bookmarks = new Map<string, Bookmark>();
  readonly notes = new Map<string, Note>();
  readonly highlights: Highlight[] = [];
  private readonly urls = new Map<string, { bookmarkId: string; noteId: string }>();
  private readonly appendIds = new Set<string>();
  private readonly keys = new Map<string, SaveRecord | IdempotencyClaim>();

  constructor(private readonly noteCap: number) {}

  async createBookmark(
    bookmark: Bookmark,
    note: Note,
    _enrichment: unknown,
    record: SaveRecord | null,
    highlights: readonly Highlight[] = [],
  ): Promise<CreateBookmarkOutcome> {
    const existing = this.urls.get(urlKey(bookmark));
    if (existing) return { kind: 'exists', ...existing };
    const used = this.liveNotes(note.userId);
    if (used >= this.noteCap) return { kind: 'note-limit', used, limit: this.noteCap };
    const taken = record && this.takenFrom(record);
    if (taken) return taken;
    this.bookmarks.set(bookmark.id, bookmark);
    this.notes.set(note.id, note);
    this.urls.set(urlKey(bookmark), { bookmarkId: bookmark.id, noteId: note.id });
    this.highlights.push(...highlights);
    if (record) this.keys.set(keyOf(record), record);
    return { kind: 'created' };
  }

  async updateSavedNote(
    ref: { bookmarkId: string; noteId: string },
    change: (note: Note) => NoteChange | null,
    updated: string,
    record: ((bookmark: Bookmark, change: NoteChange) => SaveRecord) | null,
  ): Promise<NoteUpdate> {
    const saved = await this.getSavedNote(ref);
    if (!saved || saved.note.trashedAt) throw new NoteNotFoundError(`no note ${ref.noteId}`);
    const changed = change(saved.note);
    if (!changed) return { kind: 'unchanged', ...saved };
    const bookmark = { ...saved.bookmark, updated };
    const answer = record?.(bookmark, changed);
    const taken = answer && this.takenFrom(answer);
    if (taken) return taken;
    const { highlight, ...fields } = changed;
    const note = { ...saved.note, ...fields, updated, version: saved.note.version + 1 };
    this.notes.set(note.id, note);
    this.bookmarks.set(bookmark.id, bookmark);
    if (highlight) this.highlights.push(highlight);
    if (answer) this.keys.set(keyOf(answer), answer);
    return { kind: 'updated', bookmark, note, change: changed };
  }

  async getSavedNote(ref: { bookmarkId: string; noteId: string }) {
    const bookmark = this.bookmarks.get(ref.bookmarkId);
    const note = this.notes.get(ref.noteId);
    return bookmark && note ? { bookmark, note } : null;
  }

  async appendToNote(
    bookmark: Bookmark,
    append: NoteAppend,
    record: ((bookmark: Bookmark) => SaveRecord) | null,
  ): Promise<NoteAppendOutcome> {
    const note = this.notes.get(bookmark.noteId);
    if (!note || note.trashedAt) return { kind: 'missing' };
    const updated = { ...bookmark, updated: append.updated };
    if ([append.id, ...append.sameAs].some((id) => this.appendIds.has(id)))
      return { kind: 'appended', bookmark: updated };
    if (append.unlessLastHighlight !== null && note.lastHighlight === append.unlessLastHighlight)
      return { kind: 'unchanged', bookmark };
    const answer = record?.(updated);
    const taken = answer && this.takenFrom(answer);
    if (taken) return taken;
    this.appendIds.add(append.id);
    this.notes.set(note.id, {
      ...note,
      body: withAppended(note.body, [append.text]),
      lastHighlight: append.selection ?? note.lastHighlight,
      updated: append.updated,
      version: note.version + 1,
    });
    this.bookmarks.set(bookmark.id, updated);
    if (append.highlight) this.highlights.push(append.highlight);
    if (answer) this.keys.set(keyOf(answer), answer);
    return { kind: 'appended', bookmark: updated };
  }

  async restoreNote(noteId: string): Promise<RestoreOutcome> {
    const note = this.notes.get(noteId);
    if (!note?.trashedAt) return { kind: 'missing' };
    const used = this.liveNotes(note.userId);
    if (used >= this.noteCap) return { kind: 'note-limit', used, limit: this.noteCap };
    const restored = { ...note, trashedAt: null, version: note.version + 1 };
    this.notes.set(noteId, restored);
    return { kind: 'restored', note: restored };
  }

  async removeLeftovers(note: Pick<Note, 'id' | 'bookmarkId'>): Promise<void> {
    if (this.notes.has(note.id) || !note.bookmarkId) return;
    const bookmark = this.bookmarks.get(note.bookmarkId);
    if (bookmark) this.urls.delete(urlKey(bookmark));
    this.bookmarks.delete(note.bookmarkId);
  }

  /** The user's notes counted under the cap: those not in the Trash. */
  private liveNotes(userId: string): number {
    return [...this.notes.values()].filter((stored) => stored.userId === userId && !stored.trashedAt).length;
  }

  async claimKey(claim: IdempotencyClaim): Promise<KeyTaken | null> {
    const held = this.keys.get(keyOf(claim));
    if (held) return { kind: 'key-taken', stored: { fingerprint: held.fingerprint, outcome: outcomeOf(held) } };
    this.keys.set(keyOf(claim), claim);
    return null;
  }

  async keepAnswer(record: SaveRecord): Promise<KeyTaken | null> {
    const taken = this.takenFrom(record);
    if (!taken) this.keys.set(keyOf(record), record);
    return taken;
  }

  async releaseClaim(claim: IdempotencyClaim): Promise<void> {
    if (this.keys.get(keyOf(claim))?.claimId === claim.claimId) this.keys.delete(keyOf(claim));
  }

  /** The key's holder when it is no longer this request's claim (its answer or another request's claim). */
  private takenFrom(record: SaveRecord): KeyTaken | null {
    const held = this.keys.get(keyOf(record));
    if (!held || held.claimId === record.claimId) return null;
    return { kind: 'key-taken', stored: { fingerprint: held.fingerprint, outcome: outcomeOf(held) } };
  }
}

const urlKey = (bookmark: Bookmark) => `${bookmark.userId}\n${bookmark.normalizedUrl}`;
const keyOf = (claim: { scope: string; key: string }) => `${claim.scope}\n${claim.key}`;
const outcomeOf = (held: SaveRecord | IdempotencyClaim) => ('outcome' in held ? held.outcome : null);

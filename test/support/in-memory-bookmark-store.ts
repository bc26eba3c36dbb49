import { type Bookmark, editChangesText, type Highlight, type Note } from '../../functions/core/model';
import type { LibraryStore, NoteEditChange, RetagJob } from '../../functions/core/owner/library';
import type { IdempotencyClaim } from '../../functions/core/save/idempotency';
import { withAppended } from '../../functions/core/save/note-body';
import {
  type BookmarkStore,
  type CreateBookmarkOutcome,
  type CreateNoteOutcome,
  type KeyTaken,
  type NoteAppend,
  type NoteAppendOutcome,
  type NoteChange,
  NoteNotFoundError,
  type NoteStore,
  type NoteUpdate,
  type RestoreOutcome,
  type SaveRecord,
} from '../../functions/core/save/save-bookmark';
import type { Page, PageRequest } from '../../functions/core/workspace/listing';

/**
 * The save core's store port and the owner's note store kept in memory, with the rules the DynamoDB
 * store enforces by its conditions: one bookmark per (user, normalised URL), the user's note cap, one
 * answer per Idempotency-Key, an append applied once per append id, one unfinished retag per tag.
 * For unit tests of the save use case; test/integration/note-store-model.test.ts holds it to the
 * DynamoDB store's observable behaviour.
 */
export class InMemoryBookmarkStore implements BookmarkStore, LibraryStore, NoteStore {
  readonly bookmarks = new Map<string, Bookmark>();
  readonly notes = new Map<string, Note>();
  readonly highlights: Highlight[] = [];
  private readonly urls = new Map<string, { bookmarkId: string; noteId: string }>();
  private readonly appendIds = new Set<string>();
  private readonly keys = new Map<string, SaveRecord | IdempotencyClaim>();
  private readonly retags = new Map<string, RetagJob>();

  constructor(private readonly noteCap: number) {}

  async createBookmark(
    bookmark: Bookmark,
    note: Note,
    _enrichment: unknown,
    record: SaveRecord | null,
    highlights: readonly Highlight[] = [],
  ): Promise<CreateBookmarkOutcome> {
    const existing = this.urls.get(urlKey(bookmark));
    if (existing) return { kind: 'exists', ...existing, saved: await this.getSavedNote(existing) };
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

  async createNote(note: Note, highlights: readonly Highlight[]): Promise<CreateNoteOutcome> {
    const existing = this.notes.get(note.id);
    if (existing) return { kind: 'exists', note: existing };
    const used = this.liveNotes(note.userId);
    if (used >= this.noteCap) return { kind: 'note-limit', used, limit: this.noteCap };
    this.notes.set(note.id, note);
    this.highlights.push(...highlights);
    return { kind: 'created' };
  }

  async updateNote(noteId: string, change: (note: Note) => NoteChange | null, updated: string) {
    const note = this.notes.get(noteId);
    if (!note || note.trashedAt) return null;
    const changed = change(note);
    if (!changed) return { kind: 'unchanged' as const, note };
    const { highlight, removedHighlight: _removed, ...fields } = changed;
    const written = { ...note, ...fields, updated, version: note.version + 1 };
    this.notes.set(noteId, written);
    const bookmark = note.bookmarkId ? this.bookmarks.get(note.bookmarkId) : undefined;
    if (bookmark) this.bookmarks.set(bookmark.id, { ...bookmark, updated });
    if (highlight) this.highlights.push(highlight);
    return { kind: 'updated' as const, note: written };
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

  async getNote(noteId: string): Promise<Note | null> {
    return this.notes.get(noteId) ?? null;
  }

  async noteHighlights(noteId: string): Promise<Highlight[]> {
    return this.highlights.filter((highlight) => highlight.noteId === noteId);
  }

  async editNote(noteId: string, change: (note: Note) => NoteEditChange | null, updated: string): Promise<Note | null> {
    const note = this.notes.get(noteId);
    if (!note) return null;
    const changed = change(note);
    if (!changed) return note;
    const textChanged = editChangesText(note, changed);
    const written: Note = {
      ...note,
      ...changed,
      tags: [...changed.tags],
      updated: textChanged ? updated : note.updated,
      version: note.version + 1,
    };
    this.notes.set(noteId, written);
    const bookmark = note.bookmarkId ? this.bookmarks.get(note.bookmarkId) : undefined;
    if (bookmark && textChanged) this.bookmarks.set(bookmark.id, { ...bookmark, title: written.title, updated });
    return written;
  }

  async deleteNote(noteId: string, only?: 'trashed'): Promise<Note | null> {
    const note = this.notes.get(noteId);
    if (!note || (only === 'trashed' && !note.trashedAt)) return null;
    this.notes.delete(noteId);
    const bookmark = note.bookmarkId ? this.bookmarks.get(note.bookmarkId) : undefined;
    if (bookmark) {
      this.bookmarks.delete(bookmark.id);
      this.urls.delete(urlKey(bookmark));
    }
    this.highlights.splice(0, this.highlights.length, ...this.highlights.filter((kept) => kept.noteId !== noteId));
    return note;
  }

  async tagCounts(userId: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const note of this.notesOf(userId)) for (const tag of note.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    return counts;
  }

  async notesTagged(userId: string, tag: string, limit?: number): Promise<string[]> {
    const ids = this.notesOf(userId)
      .filter((note) => note.tags.includes(tag))
      .map((note) => note.id);
    return ids.slice(0, limit);
  }

  async listNotes(userId: string, filter: { tag?: string }, page: PageRequest): Promise<Page<Note>> {
    const notes = this.notesOf(userId).filter((note) => filter.tag === undefined || note.tags.includes(filter.tag));
    const start = Number(page.cursor ?? 0);
    const end = start + page.limit;
    return { items: notes.slice(start, end), cursor: end < notes.length ? String(end) : null };
  }

  async getBookmarks(ids: readonly string[]): Promise<Bookmark[]> {
    return ids.flatMap((id) => this.bookmarks.get(id) ?? []);
  }

  async retagJobs(userId: string): Promise<RetagJob[]> {
    return [...this.retags.values()].filter((job) => job.userId === userId);
  }

  async dueRetagJobs(before: string, limit: number): Promise<RetagJob[]> {
    return [...this.retags.values()]
      .filter((job) => job.resumeAt < before)
      .sort((a, b) => (a.resumeAt < b.resumeAt ? -1 : 1))
      .slice(0, limit);
  }

  async startRetagJob(job: RetagJob): Promise<RetagJob> {
    const existing = this.retags.get(`${job.userId}\n${job.from}`);
    if (existing) return existing;
    this.retags.set(`${job.userId}\n${job.from}`, job);
    return job;
  }

  async recordRetagJob(job: RetagJob): Promise<void> {
    this.retags.set(`${job.userId}\n${job.from}`, job);
  }

  async finishRetagJob(job: RetagJob): Promise<void> {
    this.retags.delete(`${job.userId}\n${job.from}`);
  }

  /** The user's notes, most recently updated first (the order of the notes index). */
  private notesOf(userId: string): Note[] {
    return [...this.notes.values()]
      .filter((note) => note.userId === userId)
      .sort((a, b) => (b.updated ?? b.created).localeCompare(a.updated ?? a.created) || b.id.localeCompare(a.id));
  }

  async trashNote(noteId: string, trashedAt: string): Promise<Note | null> {
    const note = this.notes.get(noteId);
    if (!note || note.trashedAt) return null;
    const trashed = { ...note, trashedAt, version: note.version + 1 };
    this.notes.set(noteId, trashed);
    return trashed;
  }

  async listTrash(userId: string, page: PageRequest): Promise<Page<Note>> {
    const items = [...this.notes.values()]
      .filter((note) => note.userId === userId && note.trashedAt)
      .sort((a, b) => b.trashedAt!.localeCompare(a.trashedAt!));
    return { items: items.slice(0, page.limit), cursor: null };
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

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { ArticleRecord } from '../../core/article/article';
import { ContentionError } from '../../core/deadline';
import type { EnrichmentRequest, PageOutcome } from '../../core/enrich/enrichment';
import type { ImportWaiting, PendingEnrichment } from '../../core/enrich/outbox';
import { type Bookmark, editChangesText, type Highlight, type Note, trashPurgeTime } from '../../core/model';
import type { LibraryStore, NoteEditChange, RetagJob } from '../../core/owner/library';
import type { IdempotencyClaim } from '../../core/save/idempotency';
import { bodyBytes, NOTE_BODY_MAX_BYTES, NoteTooLargeError } from '../../core/save/note-body';
import {
  type AnswerOutcome,
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
} from '../../core/save/save-bookmark';
import { isoTimestamp } from '../../core/text/text';
import type { NoteFilter, Page, PageRequest } from '../../core/workspace/listing';
import { batchGetAll } from './batch-get';
import {
  conditionalWrite,
  type FailedCondition,
  itemTooLarge,
  TransactionSteps,
  writtenUnlessConditionFails,
} from './conditional-write';
import {
  bookmarkItem,
  type ImportBacklog,
  readBookmark,
  readImportWaiting,
  readPendingEnrichment,
} from './entities/bookmark';
import { highlightItem, readHighlight } from './entities/highlight';
import { noteItem, readNote, readNoteItem } from './entities/note';
import { stateEntryChanges } from './entities/note-state';
import { noteTagItem, readNoteEntry } from './entities/note-tag';
import { readRetagJob, retagJobItem } from './entities/retag-job';
import { readSavedUrl, savedUrlItem } from './entities/saved-url';
import { noteHighlightItems } from './highlight-items';
import {
  idempotencyClaimDelete,
  idempotencyClaimPut,
  idempotencyRecordPut,
  storedAnswer,
  takenKey,
} from './idempotency-records';
import { queryFilteredIndexPage } from './index-page';
import { keys, LOOKUP_INDEX, RETAG_JOB_PREFIX, TTL_ATTRIBUTE } from './keys';
import { queryAll } from './query-all';
import { backoff, fillTransaction, retryOnConflict, type TransactionAction } from './transactions';

/** Optimistic note updates give up after this many lost races (each retry re-reads the note). */
const MAX_NOTE_UPDATE_ATTEMPTS = 40;

/** What an attempt of an optimistic update answers when the note's version moved under it. */
const STALE = Symbol('stale');

/**
 * The optimistic update, the one loop every read-decide-write of a note runs: `attempt` reads the
 * note, decides, and writes conditional on the version it read, answering STALE when that condition
 * failed (a save appended meanwhile). It runs again, after a backoff, until it answers something
 * else, at most MAX_NOTE_UPDATE_ATTEMPTS times (then ContentionError, a 503 with Retry-After).
 */
async function optimisticUpdate<T>(
  what: string,
  action: 'update' | 'edit' | 'delete',
  attempt: () => Promise<T | typeof STALE>,
): Promise<T> {
  for (let count = 1; ; count++) {
    const result = await attempt();
    if (result !== STALE) return result;
    if (count >= MAX_NOTE_UPDATE_ATTEMPTS)
      throw new ContentionError(`${what} changed under ${count} attempts to ${action} it`);
    await backoff(Math.min(count, 6));
  }
}

/** Bookmarks, their notes and the notes' tag index in the single table. */
export class DynamoBookmarkStore implements BookmarkStore, LibraryStore, NoteStore {
  /** `importBacklog`: the bookmarks this store creates are an import's, and wait in its backlog for enrichment. */
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly importBacklog: ImportBacklog | null = null,
  ) {}

  async createBookmark(
    bookmark: Bookmark,
    note: Note,
    enrichment: EnrichmentRequest | null,
    record: SaveRecord | null,
    highlights: readonly Highlight[] = [],
  ): Promise<CreateBookmarkOutcome> {
    const TableName = this.tableName;
    const steps = new TransactionSteps<'answer' | 'saved-url' | 'note-count' | 'bookmark' | 'note' | 'entries'>()
      // First, so its failure is the one reported should DynamoDB stop at the first one.
      .add('answer', ...(record ? [{ Put: idempotencyRecordPut(TableName, record) }] : []))
      .add('saved-url', {
        // Uniqueness of (user, normalised URL): the marker exists exactly when the bookmark does.
        Put: {
          TableName,
          Item: savedUrlItem(bookmark),
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      })
      .add('note-count', noteCapCount(TableName, bookmark.userId))
      .add('bookmark', {
        Put: {
          TableName,
          Item: bookmarkItem(bookmark, enrichment, this.importBacklog),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      })
      .add('note', { Put: { TableName, Item: noteItem(note), ConditionExpression: 'attribute_not_exists(pk)' } })
      // Its tag entries, and a restored note's reading state (an import of an export).
      .add('entries', ...newNoteEntries(TableName, note));
    // A save's highlight goes in its transaction; a restored note's many fill what room the transaction has, the rest follow it.
    const { actions, overflow } = fillTransaction(
      steps.actions,
      highlights.map((highlight) => ({ Put: { TableName, Item: highlightItem(highlight) } })),
    );
    const outcome = await retryOnConflict(async (attempt) => {
      // A conflict is most often another save of the same page: once its marker is there, this one
      // appends instead of queueing behind every other new save of that page.
      const marker = attempt > 1 ? await this.savedUrlMarker(bookmark.userId, bookmark.normalizedUrl) : null;
      if (marker) return steps.refusal('saved-url', marker);
      return conditionalWrite(() => this.doc.send(new TransactWriteCommand({ TransactItems: actions })));
    });
    if (outcome.written) {
      await Promise.all(overflow.map(({ Put }) => this.doc.send(new PutCommand(Put))));
      return { kind: 'created' };
    }
    const taken = takenKey<AnswerOutcome>(steps.refused('answer', outcome.failed));
    if (taken) return taken;
    const marker = steps.refused('saved-url', outcome.failed);
    if (marker?.item) {
      const ref = readSavedUrl(unmarshall(marker.item));
      return { kind: 'exists', ...ref, saved: await this.loadBookmarkAndNote(ref) };
    }
    return noteLimit(steps.refused('note-count', outcome.failed), bookmark.userId);
  }

  async createNote(note: Note, highlights: readonly Highlight[]): Promise<CreateNoteOutcome> {
    const TableName = this.tableName;
    const steps = new TransactionSteps<'note' | 'note-count' | 'entries'>()
      // First, so that a note there already is the refusal reported.
      .add('note', {
        Put: {
          TableName,
          Item: noteItem(note),
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      })
      .add('note-count', noteCapCount(TableName, note.userId))
      .add('entries', ...newNoteEntries(TableName, note));
    const highlightPuts = highlights.map((highlight) => ({ Put: { TableName, Item: highlightItem(highlight) } }));
    const { actions, overflow } = fillTransaction(steps.actions, highlightPuts);
    const writeOverflow = () => Promise.all(overflow.map(({ Put }) => this.doc.send(new PutCommand(Put))));
    const outcome = await retryOnConflict(() =>
      conditionalWrite(() => this.doc.send(new TransactWriteCommand({ TransactItems: actions }))),
    );
    if (outcome.written) {
      await writeOverflow();
      return { kind: 'created' };
    }
    const existing = steps.refused('note', outcome.failed);
    if (!existing?.item) return noteLimit(steps.refused('note-count', outcome.failed), note.userId);
    const stored = readNote(unmarshall(existing.item));
    // A rerun after a crash between the transaction and the highlights it had no room for: those
    // are written again (the same ids and times), while the note is still as this write made it.
    if (stored.body === note.body) await writeOverflow();
    return { kind: 'exists', note: stored };
  }

  /** The (user, normalised URL) marker of a saved page, as DynamoDB returns an item (for a failed condition's outcome). */
  private async savedUrlMarker(userId: string, normalizedUrl: string): Promise<Record<string, AttributeValue> | null> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.savedUrl(userId, normalizedUrl), ConsistentRead: true }),
    );
    return Item ? marshall(Item) : null;
  }

  claimKey(claim: IdempotencyClaim): Promise<KeyTaken | null> {
    return this.putIdempotencyRecord(idempotencyClaimPut(this.tableName, claim));
  }

  keepAnswer(record: SaveRecord): Promise<KeyTaken | null> {
    return this.putIdempotencyRecord(idempotencyRecordPut(this.tableName, record));
  }

  async releaseClaim(claim: IdempotencyClaim): Promise<void> {
    // Refused when taken over (its lease had passed) or answered already: not this failure's to give up.
    await writtenUnlessConditionFails(() =>
      this.doc.send(new DeleteCommand(idempotencyClaimDelete(this.tableName, claim))),
    );
  }

  /** A conditional Put of a claim or an answer; when the key is held otherwise, what holds it. */
  private async putIdempotencyRecord(put: ConstructorParameters<typeof PutCommand>[0]): Promise<KeyTaken | null> {
    const outcome = await conditionalWrite(() => this.doc.send(new PutCommand(put)));
    if (outcome.written) return null;
    const holder = outcome.failed[0]?.item;
    if (!holder) throw new Error('An Idempotency-Key record was refused without the record that holds the key');
    return { kind: 'key-taken', stored: storedAnswer(holder) };
  }

  async getSavedNote(ref: { bookmarkId: string; noteId: string }): Promise<{ bookmark: Bookmark; note: Note } | null> {
    return this.loadBookmarkAndNote(ref);
  }

  /**
   * The append is one UpdateItem of the note: its text goes on the end of the note's `appended` list
   * (the body as read is the stored body and that list, see readNote in entities/note.ts), so concurrent appends queue in
   * DynamoDB instead of racing, in the order they arrive, and none is retried. Its condition keeps
   * the body within its limit, refuses the same append twice (its id) and, for a client's retry,
   * a selection that is still the last highlight. What follows (bookmark, tag entries, highlight
   * record, answer) only writes what the append decided, so a rerun after a crash completes it.
   */
  async appendToNote(
    bookmark: Bookmark,
    append: NoteAppend,
    record: ((bookmark: Bookmark) => SaveRecord) | null,
  ): Promise<NoteAppendOutcome> {
    const TableName = this.tableName;
    const guard = append.unlessLastHighlight !== null;
    // The body's byte count keeps it within its 300 KB, but each append also keeps its id and time in
    // the item: DynamoDB refusing the item's 400 KB is the note being full too (nothing was written).
    const written = await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName,
          Key: keys.note(bookmark.noteId),
          UpdateExpression: `SET ${[
            'appended = list_append(if_not_exists(appended, :none), :entry)',
            'bodyBytes = if_not_exists(bodyBytes, :before) + :bytes',
            ...(append.selection === null ? [] : ['lastHighlight = :selection']),
            'updated = :updated, gsi1sk = :notesIndexSort',
          ].join(', ')} ADD version :one, appendIds :ids`,
          ConditionExpression: [
            'attribute_exists(pk)',
            // A note in the Trash takes no append: the save restores it first (see saveBookmark).
            'attribute_not_exists(trashedAt)',
            '(attribute_not_exists(bodyBytes) OR bodyBytes <= :room)',
            'NOT contains(appendIds, :id)',
            ...append.sameAs.map((_, i) => `NOT contains(appendIds, :same${i})`),
            ...(guard ? ['(attribute_not_exists(lastHighlight) OR lastHighlight <> :unless)'] : []),
          ].join(' AND '),
          ExpressionAttributeValues: {
            ':none': [],
            ':entry': [{ id: append.id, saved: append.updated, text: append.text }],
            ':before': append.bytesBefore,
            ':bytes': append.bytes,
            ...(append.selection === null ? {} : { ':selection': append.selection }),
            ':updated': append.updated,
            ':notesIndexSort': keys.userNotesIndex(bookmark.userId, append.updated, bookmark.noteId).gsi1sk,
            ':one': 1,
            ':ids': new Set([append.id]),
            ':room': NOTE_BODY_MAX_BYTES - append.bytes,
            ':id': append.id,
            ...Object.fromEntries(append.sameAs.map((id, i) => [`:same${i}`, id])),
            ...(guard ? { ':unless': append.unlessLastHighlight } : {}),
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    ).catch((error: unknown) => {
      if (itemTooLarge(error)) return null;
      throw error;
    });
    if (!written) return { kind: 'note-full' };
    let note: Note;
    let saved = append.updated;
    let highlightId = append.highlight?.id;
    if (written.written) note = readNote(written.value.Attributes!);
    else {
      const found = written.failed[0]?.item;
      if (!found) return { kind: 'missing' };
      const stored = readNoteItem(unmarshall(found));
      if (stored.note.trashedAt) return { kind: 'missing' };
      const names = [append.id, ...append.sameAs];
      // The same append done before (a retry): its follow-ups are written again, under its own id and
      // time, so a retry completes what a first try cut short and the records match the body.
      const earlier = stored.appended.find((entry) => names.includes(entry.id));
      const done = names.some((id) => stored.appendIds.has(id));
      if (earlier) {
        saved = earlier.saved;
        if (append.highlight && earlier.id !== append.id) highlightId = earlier.id;
      } else if (done || (guard && stored.note.lastHighlight === append.unlessLastHighlight))
        return { kind: 'unchanged', bookmark };
      else return { kind: 'note-full' };
      note = stored.note;
    }
    const updated: Bookmark = { ...bookmark, updated: append.updated };
    const [touched, taken] = await Promise.all([
      this.touchBookmark(bookmark.id, append.updated),
      this.recordAppend(
        append.highlight && { ...append.highlight, id: highlightId ?? append.highlight.id, saved },
        record?.(updated) ?? null,
      ),
      this.touchTagEntries(note, append.updated),
    ]);
    if (taken) return taken;
    return touched ? { kind: 'appended', bookmark: updated } : { kind: 'missing' };
  }

  /** The highlight's record and, for a keyed save, its answer with it: a replay answers only what is stored. */
  private async recordAppend(highlight: Highlight | null, record: SaveRecord | null): Promise<KeyTaken | null> {
    const TableName = this.tableName;
    const highlightPut = highlight && { TableName, Item: highlightItem(highlight) };
    if (!record) {
      if (highlightPut) await this.doc.send(new PutCommand(highlightPut));
      return null;
    }
    const steps = new TransactionSteps<'answer' | 'highlight'>()
      .add('answer', { Put: idempotencyRecordPut(TableName, record) })
      .add('highlight', ...(highlightPut ? [{ Put: highlightPut }] : []));
    const outcome = await conditionalWrite(() =>
      this.doc.send(new TransactWriteCommand({ TransactItems: steps.actions })),
    );
    return outcome.written ? null : takenKey<AnswerOutcome>(steps.refused('answer', outcome.failed));
  }

  /** Each tag entry keeps the latest update time it was given: appends may finish out of order. */
  private async touchTagEntries(note: Note, updated: string): Promise<void> {
    await Promise.all(
      note.tags.map((tag) =>
        writtenUnlessConditionFails(() =>
          this.doc.send(
            new PutCommand({
              TableName: this.tableName,
              Item: noteTagItem({ ...note, updated }, tag),
              ConditionExpression: 'attribute_not_exists(pk) OR updated <= :updated',
              ExpressionAttributeValues: { ':updated': updated },
            }),
          ),
        ),
      ),
    );
  }

  /** Moves the bookmark's update time forward to `updated` (never back); false when the bookmark is gone. */
  private async touchBookmark(bookmarkId: string, updated: string): Promise<boolean> {
    const touched = await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.bookmark(bookmarkId),
          UpdateExpression: 'SET updated = :updated',
          ConditionExpression: 'attribute_exists(pk) AND updated < :updated',
          ExpressionAttributeValues: { ':updated': updated },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    return touched.written || touched.failed[0]?.item != null;
  }

  /**
   * The optimistic update loop: (re)load the bookmark and its note, apply `change`, write conditional
   * on the version read. The bookmark's update time moves with the note's, and `record` (an
   * Idempotency-Key record for the updated bookmark) is written with them.
   */
  async updateSavedNote(
    ref: { bookmarkId: string; noteId: string },
    change: (note: Note) => NoteChange | null,
    updated: string,
    record: ((bookmark: Bookmark, change: NoteChange) => SaveRecord) | null,
  ): Promise<NoteUpdate> {
    return optimisticUpdate(`Note ${ref.noteId}`, 'update', async () => {
      const found = await this.loadBookmarkAndNote(ref);
      if (!found || found.note.trashedAt)
        throw new NoteNotFoundError(
          `Bookmark ${ref.bookmarkId} or its note ${ref.noteId} is missing (or in the Trash)`,
        );
      const outcome = await this.rewriteNote(found.note, found.bookmark, change, updated, record);
      if (outcome === STALE || outcome.kind === 'key-taken') return outcome;
      return { ...outcome, bookmark: outcome.kind === 'updated' ? { ...found.bookmark, updated } : found.bookmark };
    });
  }

  async updateNote(
    noteId: string,
    change: (note: Note) => NoteChange | null,
    updated: string,
  ): Promise<{ kind: 'updated' | 'unchanged'; note: Note } | null> {
    return optimisticUpdate(`Note ${noteId}`, 'update', async () => {
      const note = await this.getNote(noteId);
      if (!note || note.trashedAt) return null;
      const outcome = await this.rewriteNote(
        note,
        note.bookmarkId ? { id: note.bookmarkId } : null,
        change,
        updated,
        null,
      );
      return outcome === STALE || outcome.kind === 'key-taken' ? STALE : outcome;
    });
  }

  /**
   * One attempt of the optimistic update of a note as read: `change` applied, written conditional on
   * the version read, with its bookmark's update time (when it has one) and `record` (an
   * Idempotency-Key record for the updated bookmark) in the same transaction. STALE when the note
   * changed since it was read, or its bookmark is gone: read it again.
   */
  private async rewriteNote<B extends Pick<Bookmark, 'id'>>(
    note: Note,
    bookmark: B | null,
    change: (note: Note) => NoteChange | null,
    updated: string,
    record: ((bookmark: B & { updated: string }, change: NoteChange) => SaveRecord) | null,
  ): Promise<
    { kind: 'updated'; note: Note; change: NoteChange } | { kind: 'unchanged'; note: Note } | KeyTaken | typeof STALE
  > {
    const TableName = this.tableName;
    const changed = change(note);
    if (!changed) return { kind: 'unchanged', note };
    const { highlight, removedHighlight, ...next } = changed;
    const written: Note = { ...note, ...next, updated, version: note.version + 1 };
    const keyed = record && bookmark ? record({ ...bookmark, updated }, changed) : null;
    const notesIndex = keys.userNotesIndex(note.userId, updated, note.id);
    const steps = new TransactionSteps<'answer' | 'note' | 'bookmark' | 'tags' | 'highlight' | 'removed'>()
      .add('answer', ...(keyed ? [{ Put: idempotencyRecordPut(TableName, keyed) }] : []))
      .add('note', {
        Update: {
          TableName,
          Key: keys.note(note.id),
          // The whole body now: what appends had added is part of it (see readNote in entities/note.ts).
          UpdateExpression:
            'SET body = :body, bodyBytes = :bodyBytes, tags = :tags, lastHighlight = :lastHighlight, updated = :updated, version = :next, gsi1pk = :notesIndex, gsi1sk = :notesIndexSort REMOVE appended',
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: {
            // The user's notes index sorts by update time, so it moves with the note.
            ':notesIndex': notesIndex.gsi1pk,
            ':notesIndexSort': notesIndex.gsi1sk,
            ':body': written.body,
            ':bodyBytes': bodyBytes(written.body),
            ':tags': written.tags,
            ':lastHighlight': written.lastHighlight,
            ':updated': updated,
            ':next': written.version,
            ':version': note.version,
          },
        },
      })
      .add(
        'bookmark',
        ...(bookmark
          ? [
              {
                Update: {
                  TableName,
                  Key: keys.bookmark(bookmark.id),
                  UpdateExpression: 'SET updated = :updated',
                  ConditionExpression: 'attribute_exists(pk)',
                  ExpressionAttributeValues: { ':updated': updated },
                },
              },
            ]
          : []),
      )
      // Every tag entry carries the note's update time: feeds list notes newest first per tag.
      .add('tags', ...written.tags.map((tag) => ({ Put: { TableName, Item: noteTagItem(written, tag) } })))
      .add('highlight', ...(highlight ? [{ Put: { TableName, Item: highlightItem(highlight) } }] : []))
      .add(
        'removed',
        ...(removedHighlight
          ? [
              {
                Delete: {
                  TableName,
                  Key: keys.highlight(removedHighlight.noteId, removedHighlight.saved, removedHighlight.id),
                },
              },
            ]
          : []),
      );
    const outcome = await this.transactNote(note.id, steps.actions);
    if (outcome.written) return { kind: 'updated', note: written, change: changed };
    const taken = takenKey<AnswerOutcome>(steps.refused('answer', outcome.failed));
    if (taken) return taken;
    // The note changed since it was read (its version condition), or the bookmark is gone: read it again.
    return STALE;
  }

  /**
   * A page of the user's notes that pass `filter`, newest first: most recently updated, or for
   * archived (starred) notes most recently archived (starred). The list is read from the narrowest
   * index partition the filter names (starred, archived, a tag's, or all notes), and the rest of the
   * filter is checked on each note read.
   */
  async listNotes(userId: string, filter: NoteFilter, page: PageRequest): Promise<Page<Note>> {
    const partition = filter.starred
      ? keys.stateIndex(userId, 'STARRED').gsi1pk
      : filter.archived
        ? keys.stateIndex(userId, 'ARCHIVED').gsi1pk
        : filter.tag === undefined
          ? keys.userNotesIndex(userId).gsi1pk
          : keys.tagIndex(userId, filter.tag).gsi1pk;
    const entriesAreNotes = partition === keys.userNotesIndex(userId).gsi1pk;
    const { items, cursor } = await queryFilteredIndexPage(
      this.doc,
      this.tableName,
      partition,
      page,
      async (entries) => {
        const notes = entriesAreNotes ? entries.map(readNote) : await this.notesOf(entries);
        return notes.map((note) => (note && passes(note, filter) ? note : null));
      },
    );
    return { items, cursor };
  }

  /** The notes index entries name, in their order (null for a note gone meanwhile). */
  private async notesOf(entries: readonly Record<string, unknown>[]): Promise<(Note | null)[]> {
    const ids = entries.map((entry) => readNoteEntry(entry).noteId);
    const found = new Map(
      (await batchGetAll(this.doc, this.tableName, [...new Set(ids)].map(keys.note)))
        .map(readNote)
        .map((note) => [note.id, note]),
    );
    return ids.map((id) => found.get(id) ?? null);
  }

  /**
   * The owner's edit of a note's title, comment, tags and reading state: conditional on the version
   * read (a save meanwhile makes it re-read and re-apply). An edit of its text moves the note in the
   * user's index, the bookmark's title with it, and the tag index to the new tags (entries of removed
   * tags deleted); archiving or starring it alone leaves its update time as it was. The archived and
   * starred entries follow the state in the same transaction.
   */
  async editNote(noteId: string, change: (note: Note) => NoteEditChange | null, updated: string): Promise<Note | null> {
    const TableName = this.tableName;
    return optimisticUpdate(`Note ${noteId}`, 'edit', async () => {
      const note = await this.getNote(noteId);
      // A note in the Trash is edited by nothing but a restore.
      if (!note || note.trashedAt) return null;
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
      const notesIndex = keys.userNotesIndex(note.userId, written.updated ?? written.created, note.id);
      const removed = note.tags.filter((tag) => !written.tags.includes(tag));
      const steps = new TransactionSteps<'note' | 'bookmark' | 'tags' | 'removed-tags' | 'states'>().add('note', {
        Update: {
          TableName,
          Key: keys.note(note.id),
          UpdateExpression:
            'SET title = :title, #comment = :comment, tags = :tags, updated = :updated, version = :next, gsi1pk = :notesIndex, gsi1sk = :notesIndexSort, archivedAt = :archivedAt, starredAt = :starredAt',
          ConditionExpression: 'version = :version',
          ExpressionAttributeNames: { '#comment': 'comment' },
          ExpressionAttributeValues: {
            ':title': written.title,
            ':comment': written.comment ?? null,
            ':tags': written.tags,
            ':updated': written.updated,
            ':next': written.version,
            ':version': note.version,
            ':notesIndex': notesIndex.gsi1pk,
            ':notesIndexSort': notesIndex.gsi1sk,
            ':archivedAt': written.archivedAt ?? null,
            ':starredAt': written.starredAt ?? null,
          },
        },
      });
      steps
        .add(
          'bookmark',
          ...(note.bookmarkId && textChanged
            ? [
                {
                  Update: {
                    TableName,
                    Key: keys.bookmark(note.bookmarkId),
                    UpdateExpression: 'SET title = :title, updated = :updated',
                    ConditionExpression: 'attribute_exists(pk)',
                    ExpressionAttributeValues: { ':title': written.title, ':updated': updated },
                  },
                },
              ]
            : []),
        )
        .add(
          'tags',
          ...(textChanged ? written.tags.map((tag) => ({ Put: { TableName, Item: noteTagItem(written, tag) } })) : []),
        )
        .add('removed-tags', ...removed.map((tag) => ({ Delete: { TableName, Key: keys.noteTag(note.id, tag) } })))
        .add('states', ...stateEntryChanges(TableName, note, written));
      const outcome = await this.transactNote(note.id, steps.actions);
      if (outcome.written) return written;
      // A save appended to the note since it was read (its version condition): read it again.
      if (steps.refused('note', outcome.failed)) return STALE;
      throw new Error(
        `Note ${noteId}: its bookmark was refused (${steps.refused('bookmark', outcome.failed) ? 'gone' : 'unknown'})`,
      );
    });
  }

  /**
   * A transaction that rewrites a note, retried on conflicts; DynamoDB refusing the note's size (a
   * race the use case's NoteBody check could not see: an append meanwhile) is a NoteTooLargeError.
   */
  private transactNote(noteId: string, actions: TransactionAction[]) {
    return retryOnConflict(() =>
      conditionalWrite(() => this.doc.send(new TransactWriteCommand({ TransactItems: actions }))),
    ).catch((error: unknown) => {
      if (itemTooLarge(error)) throw new NoteTooLargeError(`Note ${noteId} would pass DynamoDB's item size`);
      throw error;
    });
  }

  /** A note's highlights, oldest first. */
  async noteHighlights(noteId: string): Promise<Highlight[]> {
    return (await noteHighlightItems(this.doc, this.tableName, noteId)).map(readHighlight);
  }

  /**
   * Every tag of the user and how many notes carry it, counted from the notes' tag lists (only that
   * attribute is read): one query page per ~1 MB of notes, as no per-tag counter is kept.
   */
  async tagCounts(userId: string): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const notes = await queryAll(this.doc, {
      TableName: this.tableName,
      IndexName: LOOKUP_INDEX,
      KeyConditionExpression: 'gsi1pk = :partition',
      ExpressionAttributeValues: { ':partition': keys.userNotesIndex(userId).gsi1pk },
      ProjectionExpression: 'tags',
    });
    for (const note of notes)
      for (const tag of (note.tags as string[] | undefined) ?? []) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    return counts;
  }

  /** The ids of the user's notes carrying `tag`, newest first (at most `limit`). */
  async notesTagged(userId: string, tag: string, limit?: number): Promise<string[]> {
    const entries = await queryAll(
      this.doc,
      {
        TableName: this.tableName,
        IndexName: LOOKUP_INDEX,
        KeyConditionExpression: 'gsi1pk = :partition',
        ExpressionAttributeValues: { ':partition': keys.tagIndex(userId, tag).gsi1pk },
        ProjectionExpression: 'noteId',
        ScanIndexForward: false,
      },
      limit,
    );
    return entries.map((entry) => readNoteEntry(entry).noteId);
  }

  async retagJobs(userId: string): Promise<RetagJob[]> {
    const items = await queryAll(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.user(userId).pk, ':prefix': RETAG_JOB_PREFIX },
      ConsistentRead: true,
    });
    return items.map(readRetagJob);
  }

  async dueRetagJobs(before: string, limit: number): Promise<RetagJob[]> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: LOOKUP_INDEX,
        KeyConditionExpression: 'gsi1pk = :jobs AND gsi1sk < :before',
        ExpressionAttributeValues: { ':jobs': keys.retagJobsIndex().gsi1pk, ':before': before },
        Limit: limit,
      }),
    );
    return (Items ?? []).map(readRetagJob);
  }

  async startRetagJob(job: RetagJob): Promise<RetagJob> {
    const put = await conditionalWrite(() =>
      this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: retagJobItem(job),
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    const existing = put.written ? null : put.failed[0]?.item;
    return existing ? readRetagJob(unmarshall(existing)) : job;
  }

  async recordRetagJob(job: RetagJob): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: retagJobItem(job) }));
  }

  async finishRetagJob(job: RetagJob): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: keys.retagJob(job.userId, job.from) }));
  }

  /** A page of the user's bookmarks, in the order of their notes (see listNotes). */
  async listBookmarks(userId: string, filter: { tag?: string }, page: PageRequest): Promise<Page<Bookmark>> {
    const notes = await this.listNotes(userId, filter, page);
    return {
      items: await this.getBookmarks(notes.items.flatMap((note) => (note.bookmarkId ? [note.bookmarkId] : []))),
      cursor: notes.cursor,
    };
  }

  /** The bookmarks with these ids that exist, in the order given. */
  async getBookmarks(ids: readonly string[]): Promise<Bookmark[]> {
    const found = new Map(
      (await batchGetAll(this.doc, this.tableName, ids.map(keys.bookmark)))
        .map(readBookmark)
        .map((bookmark) => [bookmark.id, bookmark]),
    );
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /**
   * Moves a note to the Trash in one transaction conditional on its version: the note leaves the
   * user's notes index for the Trash's (sorted by when it was deleted), its tag and reading-state
   * entries go (feeds and lists no longer find it), its place under the note cap is given back, and
   * it carries the TTL attribute that has DynamoDB delete it TRASH_RETENTION_DAYS later. Its version
   * moves on, so the stream's consumers take it out of the search index and the links. Its bookmark,
   * saved-URL marker (a save of the page restores the note), highlights and kept page stay until it
   * is deleted for good. Null when there is no such note in the workspace.
   */
  async trashNote(noteId: string, trashedAt: string): Promise<Note | null> {
    const TableName = this.tableName;
    return optimisticUpdate(`Note ${noteId}`, 'delete', async () => {
      const note = await this.getNote(noteId);
      if (!note || note.trashedAt) return null;
      const trashed: Note = { ...note, trashedAt, version: note.version + 1 };
      const index = keys.userTrashIndex(note.userId, trashedAt, note.id);
      const actions: TransactionAction[] = [
        {
          Update: {
            TableName,
            Key: keys.note(note.id),
            UpdateExpression:
              'SET trashedAt = :trashed, #ttl = :expires, version = :next, gsi1pk = :index, gsi1sk = :indexSort',
            ConditionExpression: 'version = :version',
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: {
              ':trashed': trashedAt,
              ':expires': Math.floor(trashPurgeTime(trashedAt).getTime() / 1000),
              ':next': trashed.version,
              ':version': note.version,
              ':index': index.gsi1pk,
              ':indexSort': index.gsi1sk,
            },
          },
        },
        noteCountChange(TableName, note.userId, -1),
        ...note.tags.map((tag) => ({ Delete: { TableName, Key: keys.noteTag(note.id, tag) } })),
        ...stateEntryChanges(TableName, note, null),
      ];
      const outcome = await retryOnConflict(() =>
        conditionalWrite(() => this.doc.send(new TransactWriteCommand({ TransactItems: actions }))),
      );
      // The note changed since it was read (a save appended to it): read it again.
      return outcome.written ? trashed : STALE;
    });
  }

  /**
   * Takes a note out of the Trash, in one transaction conditional on its version: back in the notes
   * index at its own update time, its tag and reading-state entries put back, its TTL removed, and
   * counted under the note cap again (refused at the cap, as a new note would be).
   */
  async restoreNote(noteId: string): Promise<RestoreOutcome> {
    const TableName = this.tableName;
    return optimisticUpdate(`Note ${noteId}`, 'update', async () => {
      const note = await this.getNote(noteId);
      if (!note?.trashedAt) return { kind: 'missing' } as const;
      const { trashedAt: _trashed, ...rest } = note;
      const restored: Note = { ...rest, version: note.version + 1 };
      const index = keys.userNotesIndex(note.userId, note.updated ?? note.created, note.id);
      const steps = new TransactionSteps<'note' | 'note-count' | 'entries'>()
        .add('note', {
          Update: {
            TableName,
            Key: keys.note(note.id),
            UpdateExpression: 'SET version = :next, gsi1pk = :index, gsi1sk = :indexSort REMOVE trashedAt, #ttl',
            ConditionExpression: 'version = :version',
            ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
            ExpressionAttributeValues: {
              ':next': restored.version,
              ':version': note.version,
              ':index': index.gsi1pk,
              ':indexSort': index.gsi1sk,
            },
          },
        })
        .add('note-count', noteCapCount(TableName, note.userId))
        .add('entries', ...newNoteEntries(TableName, note));
      const outcome = await retryOnConflict(() =>
        conditionalWrite(() => this.doc.send(new TransactWriteCommand({ TransactItems: steps.actions }))),
      );
      if (outcome.written) return { kind: 'restored', note: restored } as const;
      // Refused at the cap; else the note changed since it was read.
      return steps.refused('note-count', outcome.failed)?.item
        ? noteLimit(steps.refused('note-count', outcome.failed), note.userId)
        : STALE;
    });
  }

  /** A page of the user's notes in the Trash, most recently deleted first. */
  async listTrash(userId: string, page: PageRequest): Promise<Page<Note>> {
    return queryFilteredIndexPage(this.doc, this.tableName, keys.userTrashIndex(userId).gsi1pk, page, async (entries) =>
      entries.map(readNote),
    );
  }

  /**
   * Deletes the note for good, in the Trash or not, and everything that exists because of it (its
   * bookmark, the saved-URL marker, its tag and reading-state entries, its highlights), and gives a
   * live note's place under the note cap back (a trashed note gave it when it went to the Trash), in
   * one transaction conditional on the note's version, so a save appending to it meanwhile makes it
   * start over rather than leave an entry behind. Returns the deleted note, or null when there was none
   * (with `only: 'trashed'`, none in the Trash).
   */
  async deleteNote(noteId: string, only?: 'trashed'): Promise<Note | null> {
    const TableName = this.tableName;
    return optimisticUpdate(`Note ${noteId}`, 'delete', async () => {
      const note = await this.getNote(noteId);
      // With `only`, a note restored meanwhile is kept (the version condition catches a restore after this read).
      if (!note || (only === 'trashed' && !note.trashedAt)) return null;
      const live = !note.trashedAt;
      const [bookmark, highlights] = await Promise.all([
        note.bookmarkId ? this.getBookmark(note.bookmarkId) : null,
        noteHighlightItems(this.doc, TableName, note.id, 'pk, sk') as Promise<{ pk: string; sk: string }[]>,
      ]);
      // The highlights go with the note in its transaction as far as it has room; the rest right after it.
      const { actions, overflow } = fillTransaction(
        [
          {
            Delete: {
              TableName,
              Key: keys.note(note.id),
              ConditionExpression: 'version = :version',
              ExpressionAttributeValues: { ':version': note.version },
            },
          },
          ...(live ? [noteCountChange(TableName, note.userId, -1)] : []),
          ...(bookmark
            ? [
                { Delete: { TableName, Key: keys.bookmark(bookmark.id) } },
                { Delete: { TableName, Key: keys.savedUrl(note.userId, bookmark.normalizedUrl) } },
              ]
            : []),
          ...(live
            ? [
                ...note.tags.map((tag) => ({ Delete: { TableName, Key: keys.noteTag(note.id, tag) } })),
                ...stateEntryChanges(TableName, note, null),
              ]
            : []),
        ],
        highlights.map((Key) => ({ Delete: { TableName, Key } })),
      );
      const outcome = await retryOnConflict(() =>
        conditionalWrite(() => this.doc.send(new TransactWriteCommand({ TransactItems: actions }))),
      );
      if (outcome.written) {
        await Promise.all(overflow.map(({ Delete }) => this.doc.send(new DeleteCommand(Delete))));
        return note;
      }
      // The note changed since it was read (a save appended to it): read it again.
      return STALE;
    });
  }

  /**
   * Deletes what a note deleted by its TTL (from the Trash) leaves behind: its bookmark, its saved-URL
   * marker and its highlights, only once the note is gone (nothing while it exists), so it runs again
   * harmlessly. Its links and names are the link projection's; its search entry the indexer's.
   */
  async removeLeftovers(note: Pick<Note, 'id' | 'userId' | 'bookmarkId'>): Promise<void> {
    const TableName = this.tableName;
    const [bookmark, highlights] = await Promise.all([
      note.bookmarkId ? this.getBookmark(note.bookmarkId) : null,
      noteHighlightItems(this.doc, TableName, note.id, 'pk, sk') as Promise<{ pk: string; sk: string }[]>,
    ]);
    if (!bookmark && highlights.length === 0) return;
    const { actions, overflow } = fillTransaction(
      [
        { ConditionCheck: { TableName, Key: keys.note(note.id), ConditionExpression: 'attribute_not_exists(pk)' } },
        ...(bookmark
          ? [
              { Delete: { TableName, Key: keys.bookmark(bookmark.id) } },
              {
                Delete: {
                  TableName,
                  Key: keys.savedUrl(note.userId, bookmark.normalizedUrl),
                  // Only the marker of this note's page: another save's marker is never taken.
                  ConditionExpression: 'attribute_not_exists(pk) OR noteId = :note',
                  ExpressionAttributeValues: { ':note': note.id },
                },
              },
            ]
          : []),
      ],
      highlights.map((Key) => ({ Delete: { TableName, Key } })),
    );
    const outcome = await retryOnConflict(() =>
      conditionalWrite(() => this.doc.send(new TransactWriteCommand({ TransactItems: actions }))),
    );
    if (outcome.written) await Promise.all(overflow.map(({ Delete }) => this.doc.send(new DeleteCommand(Delete))));
  }

  async setIcon(bookmarkId: string, icon: string): Promise<void> {
    await this.updateBookmark(bookmarkId, 'SET icon = :icon', { ':icon': icon });
  }

  /** Records how the page enrichment ended and takes the bookmark out of the enrichment outbox. */
  async recordPageOutcome(bookmarkId: string, outcome: PageOutcome): Promise<void> {
    await this.updateBookmark(
      bookmarkId,
      'SET pageStatus = :status, pageError = :reason, enrichedAt = :at REMOVE gsi1pk, gsi1sk',
      {
        ':status': outcome.status,
        ':reason': outcome.status === 'failed' ? outcome.reason : null,
        ':at': isoTimestamp(new Date()),
      },
    );
  }

  /** Enrichment requests still in the outbox since before `before` (ISO time), oldest first. */
  async pendingEnrichments(before: string, limitPerShard: number): Promise<PendingEnrichment[]> {
    return (await this.readShards(keys.enrichmentOutboxShards, limitPerShard, before)).map(readPendingEnrichment);
  }

  /** Imported bookmarks waiting for enrichment, oldest first, at most `limitPerShard` of each shard. */
  async importWaiting(limitPerShard: number): Promise<ImportWaiting[]> {
    return (await this.readShards(keys.importBacklogShards, limitPerShard)).map(readImportWaiting);
  }

  /** The first `limitPerShard` items of each shard of a list kept in the lookup index (before `before`, when given). */
  private async readShards(shards: readonly string[], limitPerShard: number, before?: string) {
    const pages = await Promise.all(
      shards.map((shard) =>
        this.doc.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: LOOKUP_INDEX,
            KeyConditionExpression: `gsi1pk = :shard${before === undefined ? '' : ' AND gsi1sk < :before'}`,
            ExpressionAttributeValues: { ':shard': shard, ...(before === undefined ? {} : { ':before': before }) },
            Limit: limitPerShard,
          }),
        ),
      ),
    );
    return pages.flatMap((page) => page.Items ?? []);
  }

  /** Moves an imported bookmark from the backlog into the outbox (its request published); false when it left it meanwhile. */
  async releaseImported(bookmarkId: string, since: string): Promise<boolean> {
    const { gsi1pk, gsi1sk } = keys.enrichmentOutbox(bookmarkId, since);
    return this.updateBookmark(
      bookmarkId,
      'SET gsi1pk = :outbox, gsi1sk = :since, outboxSince = :at',
      { ':outbox': gsi1pk, ':since': gsi1sk, ':at': since, ':backlog': 'IMPORTWAIT#' },
      'begins_with(gsi1pk, :backlog)',
    );
  }

  /** Moves a re-published request to the back of the outbox, counting the attempt. */
  async deferEnrichment(bookmarkId: string, since: string): Promise<void> {
    const { gsi1sk } = keys.enrichmentOutbox(bookmarkId, since);
    await this.updateBookmark(
      bookmarkId,
      'SET gsi1sk = :since, sweeps = if_not_exists(sweeps, :zero) + :one',
      { ':since': gsi1sk, ':zero': 0, ':one': 1 },
      'attribute_exists(gsi1pk)',
    );
  }

  /**
   * The kept article's row data (metadata and content hash, never the body); false when the bookmark
   * is gone. A new content hash also goes on the note, raising its version, so the stream brings the
   * note to the search index, which reads the article's text (its update time stays: the owner
   * changed nothing).
   */
  async recordArticle(bookmarkId: string, article: ArticleRecord): Promise<boolean> {
    const written = await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.bookmark(bookmarkId),
          UpdateExpression: 'SET article = :article',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':article': article },
          ReturnValues: 'ALL_NEW',
        }),
      ),
    );
    if (!written.written) return false;
    const noteId = written.value.Attributes?.noteId as string | undefined;
    if (noteId && article.hash) await this.noteKeepsArticle(noteId, article.hash);
    return true;
  }

  /**
   * Puts a kept article's content hash on its note, raising its version (so the stream brings it to
   * the search index) unless the note has that hash already or is gone; true when it changed.
   */
  async noteKeepsArticle(noteId: string, hash: string): Promise<boolean> {
    return writtenUnlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.note(noteId),
          UpdateExpression: 'SET articleHash = :hash ADD version :one',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(articleHash) OR articleHash <> :hash)',
          ExpressionAttributeValues: { ':hash': hash, ':one': 1 },
        }),
      ),
    );
  }

  /** Bookmarks waiting for their page fetch (article-backfill), at most `limit`, oldest first within each shard. */
  async queuedArticleFetches(limit: number): Promise<string[]> {
    const perShard = Math.max(1, Math.ceil(limit / keys.articleBackfillShards.length));
    return (await this.readShards(keys.articleBackfillShards, perShard))
      .map((item) => item.id as string)
      .slice(0, limit);
  }

  /** Takes a bookmark off the article-backfill list, its fetch queued. */
  async articleFetchQueued(bookmarkId: string): Promise<void> {
    await this.updateBookmark(
      bookmarkId,
      'REMOVE gsi1pk, gsi1sk',
      { ':backfill': 'ARTICLES#' },
      'begins_with(gsi1pk, :backfill)',
    );
  }

  private async updateBookmark(
    bookmarkId: string,
    expression: string,
    values: Record<string, unknown>,
    condition = 'attribute_exists(pk)',
  ): Promise<boolean> {
    // Refused when the bookmark was deleted meanwhile (or already left the outbox): nothing left to update.
    return writtenUnlessConditionFails(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.bookmark(bookmarkId),
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  async getBookmark(bookmarkId: string): Promise<Bookmark | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.bookmark(bookmarkId) }));
    return Item ? readBookmark(Item) : null;
  }

  async getNote(noteId: string): Promise<Note | null> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.note(noteId), ConsistentRead: true }),
    );
    return Item ? readNote(Item) : null;
  }

  /** Both in one BatchGetItem; unprocessed keys are read again, so "missing" (null) means missing. */
  private async loadBookmarkAndNote(ref: {
    bookmarkId: string;
    noteId: string;
  }): Promise<{ bookmark: Bookmark; note: Note } | null> {
    const items = await batchGetAll(this.doc, this.tableName, [keys.bookmark(ref.bookmarkId), keys.note(ref.noteId)], {
      consistentRead: true,
    });
    const bookmark = items.find((item) => item.type === 'Bookmark');
    const note = items.find((item) => item.type === 'Note');
    if (!bookmark || !note) return null;
    return { bookmark: readBookmark(bookmark), note: readNote(note) };
  }
}

/**
 * The note cap: a new (or restored) note counted in the same transaction that writes it, refused at
 * the cap, so parallel writes cannot overshoot it.
 */
function noteCapCount(TableName: string, userId: string): TransactionAction {
  return {
    Update: {
      TableName,
      Key: keys.user(userId),
      UpdateExpression: 'SET noteCount = noteCount + :one',
      ConditionExpression: 'attribute_exists(pk) AND noteCount < noteCap',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** The cap a refused noteCapCount met: the account's count and cap as the refusal read them. */
function noteLimit(refused: FailedCondition | null, userId: string) {
  if (!refused?.item) throw new Error(`User ${userId} does not exist`);
  const account = unmarshall(refused.item);
  return { kind: 'note-limit', used: Number(account.noteCount), limit: Number(account.noteCap) } as const;
}

/** A note's tag entries and reading-state entries, as it enters the workspace (created or restored). */
const newNoteEntries = (TableName: string, note: Note): TransactionAction[] => [
  ...note.tags.map((tag) => ({ Put: { TableName, Item: noteTagItem(note, tag) } })),
  ...stateEntryChanges(TableName, null, note),
];

/** Moves the user's note count by `by` (a note created or restored: +1, trashed or deleted: -1). */
function noteCountChange(TableName: string, userId: string, by: 1 | -1): TransactionAction {
  return {
    Update: {
      TableName,
      Key: keys.user(userId),
      UpdateExpression: 'SET noteCount = noteCount + :by',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':by': by },
    },
  };
}

/** Whether a note passes every part of a list's filter. */
function passes(note: Note, filter: NoteFilter): boolean {
  return (
    (filter.tag === undefined || note.tags.includes(filter.tag)) &&
    (filter.archived === undefined || (note.archivedAt != null) === filter.archived) &&
    (filter.starred === undefined || (note.starredAt != null) === filter.starred)
  );
}

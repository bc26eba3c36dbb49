import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { EnrichmentRequest, PageOutcome } from '../../core/enrich/enrichment';
import type { PendingEnrichment } from '../../core/enrich/outbox';
import type { Bookmark, Highlight, Note } from '../../core/model';
import type { IdempotencyClaim } from '../../core/save/idempotency';
import {
  type AnswerOutcome,
  type BookmarkStore,
  type CreateBookmarkOutcome,
  type KeyTaken,
  type NoteChange,
  NoteNotFoundError,
  type NoteUpdate,
  type SaveRecord,
} from '../../core/save/save-bookmark';
import { isoTimestamp } from '../../core/text/text';
import type { Page, PageRequest } from '../../core/workspace/listing';
import { batchGetAll } from './batch-get';
import { noteHighlightItems } from './highlight-items';
import {
  idempotencyClaimDelete,
  idempotencyClaimPut,
  idempotencyRecordPut,
  storedAnswer,
  takenKey,
} from './idempotency-records';
import { queryIndexPage } from './index-page';
import { highlightItem, toBookmark, toNote } from './items';
import { keys, LOOKUP_INDEX } from './keys';
import { backoff, cancellationReasons, fillTransaction, retryOnConflict } from './transactions';

/** Optimistic note updates give up after this many lost races (each retry re-reads the note). */
const MAX_NOTE_UPDATE_ATTEMPTS = 40;

/** Bookmarks, their notes and the notes' tag index in the single table. */
export class DynamoBookmarkStore implements BookmarkStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createBookmark(
    bookmark: Bookmark,
    note: Note,
    enrichment: EnrichmentRequest | null,
    record: SaveRecord | null,
    highlights: readonly Highlight[] = [],
  ): Promise<CreateBookmarkOutcome> {
    const TableName = this.tableName;
    // A save's highlight goes in its transaction; a restored note's many fill what room the transaction has, the rest follow it.
    const { actions, overflow } = fillTransaction(
      [
        // First, so its failure is the one reported should DynamoDB stop at the first one.
        ...(record ? [{ Put: idempotencyRecordPut(TableName, record) }] : []),
        {
          // Uniqueness of (user, normalised URL): the marker exists exactly when the bookmark does.
          Put: {
            TableName,
            Item: {
              ...keys.savedUrl(bookmark.userId, bookmark.normalizedUrl),
              type: 'SavedUrl',
              bookmarkId: bookmark.id,
              noteId: note.id,
              url: bookmark.normalizedUrl,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          // The note cap: counted in the same transaction, so parallel saves cannot overshoot it.
          Update: {
            TableName,
            Key: keys.user(bookmark.userId),
            UpdateExpression: 'SET noteCount = noteCount + :one',
            ConditionExpression: 'attribute_exists(pk) AND noteCount < noteCap',
            ExpressionAttributeValues: { ':one': 1 },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Put: { TableName, Item: bookmarkItem(bookmark, enrichment), ConditionExpression: 'attribute_not_exists(pk)' },
        },
        { Put: { TableName, Item: noteItem(note), ConditionExpression: 'attribute_not_exists(pk)' } },
        ...note.tags.map((tag) => ({ Put: { TableName, Item: noteTagItem(note, tag) } })),
      ],
      highlights.map((highlight) => ({ Put: { TableName, Item: highlightItem(highlight) } })),
    );
    return retryOnConflict(async () => {
      try {
        await this.doc.send(new TransactWriteCommand({ TransactItems: actions }));
        await Promise.all(overflow.map(({ Put }) => this.doc.send(new PutCommand(Put))));
        return { kind: 'created' };
      } catch (error) {
        const reasons = cancellationReasons(error);
        const taken = record && takenKey<AnswerOutcome>(reasons?.[0]);
        if (taken) return taken;
        const [marker, user] = reasons?.slice(record ? 1 : 0) ?? [];
        if (marker?.Code === 'ConditionalCheckFailed' && marker.Item) {
          const saved = unmarshall(marker.Item);
          return { kind: 'exists', bookmarkId: saved.bookmarkId, noteId: saved.noteId };
        }
        if (user?.Code === 'ConditionalCheckFailed') {
          if (!user.Item) throw new Error(`User ${bookmark.userId} does not exist`);
          const account = unmarshall(user.Item);
          return { kind: 'note-limit', used: Number(account.noteCount), limit: Number(account.noteCap) };
        }
        throw error;
      }
    });
  }

  async updateSavedNote(
    ref: { bookmarkId: string; noteId: string },
    change: (note: Note) => NoteChange | null,
    updated: string,
    record: ((bookmark: Bookmark) => SaveRecord) | null,
  ): Promise<NoteUpdate> {
    return this.updateNote(ref, change, updated, record);
  }

  claimKey(claim: IdempotencyClaim): Promise<KeyTaken | null> {
    return this.putIdempotencyRecord(idempotencyClaimPut(this.tableName, claim));
  }

  keepAnswer(record: SaveRecord): Promise<KeyTaken | null> {
    return this.putIdempotencyRecord(idempotencyRecordPut(this.tableName, record));
  }

  async releaseClaim(claim: IdempotencyClaim): Promise<void> {
    try {
      await this.doc.send(new DeleteCommand(idempotencyClaimDelete(this.tableName, claim)));
    } catch (error) {
      // Taken over (its lease had passed) or answered already: not this failure's to give up.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** A conditional Put of a claim or an answer; when the key is held otherwise, what holds it. */
  private async putIdempotencyRecord(put: ConstructorParameters<typeof PutCommand>[0]): Promise<KeyTaken | null> {
    try {
      await this.doc.send(new PutCommand(put));
      return null;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException && error.Item)
        return { kind: 'key-taken', stored: storedAnswer(error.Item) };
      throw error;
    }
  }

  /**
   * The optimistic update loop: (re)load the bookmark and its note, apply `change`, write conditional
   * on the version read. The bookmark's update time moves with the note's, and `record` (an
   * Idempotency-Key record for the updated bookmark) is written with them.
   */
  private async updateNote(
    ref: { bookmarkId: string; noteId: string },
    change: (note: Note) => NoteChange | null,
    updated: string,
    record: ((bookmark: Bookmark) => SaveRecord) | null,
  ): Promise<NoteUpdate> {
    const TableName = this.tableName;
    for (let attempt = 1; ; attempt++) {
      const { bookmark, note } = await this.loadBookmarkAndNote(ref);
      const changed = change(note);
      if (!changed) return { kind: 'unchanged', bookmark, note };
      const { highlight, ...next } = changed;
      const written: Note = { ...note, ...next, updated, version: note.version + 1 };
      const updatedBookmark: Bookmark = { ...bookmark, updated };
      const keyed = record ? record(updatedBookmark) : null;
      const notesIndex = keys.userNotesIndex(note.userId, updated, note.id);
      try {
        await retryOnConflict(() =>
          this.doc.send(
            new TransactWriteCommand({
              TransactItems: [
                ...(keyed ? [{ Put: idempotencyRecordPut(TableName, keyed) }] : []),
                {
                  Update: {
                    TableName,
                    Key: keys.note(note.id),
                    UpdateExpression:
                      'SET body = :body, tags = :tags, lastHighlight = :lastHighlight, updated = :updated, version = :next, gsi1pk = :notesIndex, gsi1sk = :notesIndexSort',
                    ConditionExpression: 'version = :version',
                    ExpressionAttributeValues: {
                      // The user's notes index sorts by update time, so it moves with the note.
                      ':notesIndex': notesIndex.gsi1pk,
                      ':notesIndexSort': notesIndex.gsi1sk,
                      ':body': written.body,
                      ':tags': written.tags,
                      ':lastHighlight': written.lastHighlight,
                      ':updated': updated,
                      ':next': written.version,
                      ':version': note.version,
                    },
                  },
                },
                {
                  Update: {
                    TableName,
                    Key: keys.bookmark(bookmark.id),
                    UpdateExpression: 'SET updated = :updated',
                    ConditionExpression: 'attribute_exists(pk)',
                    ExpressionAttributeValues: { ':updated': updated },
                  },
                },
                // Every tag entry carries the note's update time: feeds list notes newest first per tag.
                ...written.tags.map((tag) => ({ Put: { TableName, Item: noteTagItem(written, tag) } })),
                ...(highlight ? [{ Put: { TableName, Item: highlightItem(highlight) } }] : []),
              ],
            }),
          ),
        );
        return { kind: 'updated', bookmark: updatedBookmark, note: written };
      } catch (error) {
        const reasons = cancellationReasons(error);
        const taken = keyed && takenKey<AnswerOutcome>(reasons?.[0]);
        if (taken) return taken;
        const lostRace = reasons?.[keyed ? 1 : 0]?.Code === 'ConditionalCheckFailed';
        if (!lostRace || attempt >= MAX_NOTE_UPDATE_ATTEMPTS) throw error;
        await backoff(Math.min(attempt, 6));
      }
    }
  }

  /**
   * A page of the user's notes (only those tagged `tag`, given one), most recently updated first.
   * Without a tag the index holds the notes themselves; with one, its entries name the notes to read.
   */
  async listNotes(userId: string, filter: { tag?: string }, page: PageRequest): Promise<Page<Note>> {
    const partition =
      filter.tag === undefined ? keys.userNotesIndex(userId).gsi1pk : keys.tagIndex(userId, filter.tag).gsi1pk;
    const { items, cursor } = await queryIndexPage(this.doc, this.tableName, partition, page);
    const notes =
      filter.tag === undefined
        ? items.map(toNote)
        : await this.notesInOrder(items.map((entry) => entry.noteId as string));
    return { items: notes, cursor };
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
      (await batchGetAll(this.doc, this.tableName, ids.map(keys.bookmark))).map((item) => [
        item.id as string,
        toBookmark(item),
      ]),
    );
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  private async notesInOrder(noteIds: string[]): Promise<Note[]> {
    const found = new Map(
      (await batchGetAll(this.doc, this.tableName, noteIds.map(keys.note))).map((item) => [
        item.id as string,
        toNote(item),
      ]),
    );
    return noteIds.flatMap((id) => found.get(id) ?? []);
  }

  /**
   * Deletes the note and everything that exists because of it (its bookmark, the saved-URL marker,
   * its tag index entries) and gives its place under the note cap back, in one transaction
   * conditional on the note's version, so a save appending to it meanwhile makes it start over
   * rather than leave an entry behind. Returns the deleted note, or null when there was none.
   */
  async deleteNote(noteId: string): Promise<Note | null> {
    const TableName = this.tableName;
    for (let attempt = 1; ; attempt++) {
      const note = await this.getNote(noteId);
      if (!note) return null;
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
          {
            Update: {
              TableName,
              Key: keys.user(note.userId),
              UpdateExpression: 'SET noteCount = noteCount - :one',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
          ...(bookmark
            ? [
                { Delete: { TableName, Key: keys.bookmark(bookmark.id) } },
                { Delete: { TableName, Key: keys.savedUrl(note.userId, bookmark.normalizedUrl) } },
              ]
            : []),
          ...note.tags.map((tag) => ({ Delete: { TableName, Key: keys.noteTag(note.id, tag) } })),
        ],
        highlights.map((Key) => ({ Delete: { TableName, Key } })),
      );
      try {
        await retryOnConflict(() => this.doc.send(new TransactWriteCommand({ TransactItems: actions })));
        await Promise.all(overflow.map(({ Delete }) => this.doc.send(new DeleteCommand(Delete))));
        return note;
      } catch (error) {
        const lostRace = cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed';
        if (!lostRace || attempt >= MAX_NOTE_UPDATE_ATTEMPTS) throw error;
        await backoff(Math.min(attempt, 6));
      }
    }
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
    const shards = await Promise.all(
      keys.enrichmentOutboxShards.map((shard) =>
        this.doc.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: LOOKUP_INDEX,
            KeyConditionExpression: 'gsi1pk = :shard AND gsi1sk < :before',
            ExpressionAttributeValues: { ':shard': shard, ':before': before },
            Limit: limitPerShard,
          }),
        ),
      ),
    );
    // A bookmark enters the outbox when it is created (bookmarkItem), so that is when its request began to wait.
    return shards
      .flatMap((page) => page.Items ?? [])
      .map((item) => ({
        request: pendingRequest(item),
        sweeps: Number(item.sweeps ?? 0),
        pendingSince: item.created as string,
      }));
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

  private async updateBookmark(
    bookmarkId: string,
    expression: string,
    values: Record<string, unknown>,
    condition = 'attribute_exists(pk)',
  ): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.bookmark(bookmarkId),
          UpdateExpression: expression,
          ConditionExpression: condition,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      // The bookmark was deleted meanwhile (or already left the outbox): nothing left to update.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async getBookmark(bookmarkId: string): Promise<Bookmark | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.bookmark(bookmarkId) }));
    return Item ? toBookmark(Item) : null;
  }

  async getNote(noteId: string): Promise<Note | null> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: keys.note(noteId), ConsistentRead: true }),
    );
    return Item ? toNote(Item) : null;
  }

  /** Both in one BatchGetItem; unprocessed keys are read again, so "missing" means missing. */
  private async loadBookmarkAndNote(ref: {
    bookmarkId: string;
    noteId: string;
  }): Promise<{ bookmark: Bookmark; note: Note }> {
    const items = await batchGetAll(this.doc, this.tableName, [keys.bookmark(ref.bookmarkId), keys.note(ref.noteId)], {
      consistentRead: true,
    });
    const bookmark = items.find((item) => item.type === 'Bookmark');
    const note = items.find((item) => item.type === 'Note');
    if (!bookmark || !note)
      throw new NoteNotFoundError(`Bookmark ${ref.bookmarkId} or its note ${ref.noteId} is missing`);
    return { bookmark: toBookmark(bookmark), note: toNote(note) };
  }
}

/** A bookmark in the enrichment outbox keeps what is to be done; the request is rebuilt from it. */
function bookmarkItem(bookmark: Bookmark, enrichment: EnrichmentRequest | null) {
  const intent = enrichment && { scrapeDescription: enrichment.scrapeDescription, fetchIcon: enrichment.fetchIcon };
  const outbox = intent
    ? { ...keys.enrichmentOutbox(bookmark.id, bookmark.created), enrichment: intent, pageStatus: 'pending' }
    : {};
  return { ...keys.bookmark(bookmark.id), type: 'Bookmark', ...bookmark, ...outbox };
}

function pendingRequest(item: Record<string, unknown>): EnrichmentRequest {
  const intent = item.enrichment as { scrapeDescription: boolean; fetchIcon: boolean };
  return { bookmarkId: item.id as string, scrapeDescription: intent.scrapeDescription, fetchIcon: intent.fetchIcon };
}

/** `highlightsRecorded`: the note's highlights have records (notes from before are `gleaner migrate`'s to do). */
function noteItem(note: Note) {
  return {
    ...keys.note(note.id),
    ...keys.userNotesIndex(note.userId, note.updated ?? note.created, note.id),
    type: 'Note',
    ...note,
    tags: [...note.tags],
    highlightsRecorded: true,
  };
}

function noteTagItem(note: Note, tag: string) {
  const updated = note.updated ?? note.created;
  return {
    ...keys.noteTag(note.id, tag),
    ...keys.tagIndex(note.userId, tag, updated, note.id),
    type: 'NoteTag',
    noteId: note.id,
    tag,
    tags: [...note.tags],
    updated,
  };
}

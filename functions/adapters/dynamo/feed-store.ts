import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import type { FeedIndexEntry, FeedNote, PublishedFeedStore } from '../../core/feed/feed';
import type { FeedRecord, Highlight } from '../../core/model';
import { batchGetAll } from './batch-get';
import { writtenUnlessConditionFails } from './conditional-write';
import { feedItem, readFeed } from './entities/feed';
import { readHighlight } from './entities/highlight';
import { readNote } from './entities/note';
import { readNoteEntry } from './entities/note-tag';
import { noteHighlightItems } from './highlight-items';
import { keys, LOOKUP_INDEX } from './keys';
import { queryAll } from './query-all';
import { transactForUser } from './user-transaction';

/** Index entries read per query page when an `all` filter has to skip notes lacking other tags. */
const ALL_MATCH_PAGE_SIZE = 100;
/** Pages read per tag for an `all` feed at most; see entriesWithAllTags. */
const ALL_MATCH_MAX_ROUNDS = 10;

/** Published feeds, and the notes a feed shows, read through the per-tag index. */
export class DynamoFeedStore implements PublishedFeedStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Stores a feed of an existing user; fails with UserNotFoundError otherwise. */
  async createFeed(feed: FeedRecord): Promise<void> {
    const created = await transactForUser(this.doc, this.tableName, feed.userId, [
      { Put: { TableName: this.tableName, Item: feedItem(feed), ConditionExpression: 'attribute_not_exists(pk)' } },
    ]);
    if (!created.written) throw new Error(`Feed ${feed.id} exists already`);
  }

  /** Replaces a feed unless it changed (or was deleted) since `previous` was read; false then. */
  async replaceFeed(previous: FeedRecord, next: FeedRecord): Promise<boolean> {
    return writtenUnlessConditionFails(() =>
      this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: feedItem(next),
          ConditionExpression: 'attribute_exists(pk) AND updated = :updated',
          ExpressionAttributeValues: { ':updated': previous.updated },
        }),
      ),
    );
  }

  async deleteFeed(feedId: string): Promise<boolean> {
    const { Attributes } = await this.doc.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.feed(feedId), ReturnValues: 'ALL_OLD' }),
    );
    return Attributes !== undefined;
  }

  async getFeed(feedId: string): Promise<FeedRecord | null> {
    const { Item } = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keys.feed(feedId) }));
    return Item ? readFeed(Item) : null;
  }

  /** Every feed of the user, newest first. */
  async listFeeds(userId: string): Promise<FeedRecord[]> {
    const items = await queryAll(this.doc, {
      TableName: this.tableName,
      IndexName: LOOKUP_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.userFeedsIndex(userId).gsi1pk },
      ScanIndexForward: false,
    });
    return items.map(readFeed);
  }

  /**
   * The newest `max` notes of the feed's owner that match its filter. Reads only the tag index
   * (newest first) and then the matching notes, so the cost does not grow with the workspace:
   * `any` reads at most `max` index entries per tag; `all` walks every tag's entries in parallel,
   * keeping those with the other tags, and stops at the rarest tag's end or at `max` matches.
   * This is the index's plan for core's feedShowsNote; the read keeps only the notes it shows (notesShown).
   */
  async matchingEntries(feed: FeedRecord, max: number, before: string | null = null): Promise<FeedIndexEntry[]> {
    if (feed.tags.length === 0 || max <= 0) return [];
    const entries =
      feed.match === 'all'
        ? await this.entriesWithAllTags(feed, max, before)
        : await this.entriesWithAnyTag(feed, max, before);
    return entries.map((entry) => ({
      noteId: entry.noteId,
      updated: entry.sortKey.slice(0, entry.sortKey.lastIndexOf('#')) || null,
      position: entry.sortKey,
    }));
  }

  async notesOf(entries: readonly FeedIndexEntry[]): Promise<FeedNote[]> {
    const items = await batchGetAll(
      this.doc,
      this.tableName,
      entries.map((entry) => keys.note(entry.noteId)),
    );
    const byId = new Map(items.map(readNote).map((note) => [note.id, note]));
    return entries.flatMap((entry) => {
      const note = byId.get(entry.noteId);
      return note
        ? [
            {
              id: note.id,
              title: note.title,
              body: note.body,
              tags: note.tags,
              url: note.url,
              updated: note.updated,
              created: note.created,
            },
          ]
        : [];
    });
  }

  /** Every highlight of the notes, each note's read in parallel (a highlight feed reads a page of notes). */
  async highlightsOf(noteIds: readonly string[]): Promise<Highlight[]> {
    const perNote = await Promise.all(noteIds.map((noteId) => noteHighlightItems(this.doc, this.tableName, noteId)));
    return perNote.flat().map(readHighlight);
  }

  private async entriesWithAnyTag(feed: FeedRecord, max: number, before: string | null): Promise<TagIndexEntry[]> {
    const perTag = await Promise.all(
      feed.tags.map((tag) => this.queryTagIndex(feed.userId, tag, { limit: max, before }).then((page) => page.entries)),
    );
    const newestFirst = perTag.flat().sort((a, b) => (a.sortKey < b.sortKey ? 1 : a.sortKey > b.sortKey ? -1 : 0));
    const seen = new Set<string>();
    return newestFirst.filter((entry) => !seen.has(entry.noteId) && seen.add(entry.noteId)).slice(0, max);
  }

  /**
   * `all`: the notes carrying every tag are the entries of any one tag that carry the others, so the
   * rarest tag gives them cheapest. Which tag is rarest is not stored, so every tag's index is walked
   * a page at a time in parallel, each keeping only entries with the other tags, until one tag's index
   * is exhausted (its matches are all of them) or one walk has `max` matches (newest first, so the
   * newest `max`). At most ALL_MATCH_MAX_ROUNDS pages per tag: past that the furthest walk's matches
   * are served, so a read's cost stays bounded however large the workspace.
   */
  private async entriesWithAllTags(feed: FeedRecord, max: number, before: string | null): Promise<TagIndexEntry[]> {
    const walks = feed.tags.map((tag) => ({
      tag,
      others: feed.tags.filter((other) => other !== tag),
      found: [] as TagIndexEntry[],
      startKey: undefined as Record<string, unknown> | undefined,
      done: false,
    }));
    for (let round = 0; round < ALL_MATCH_MAX_ROUNDS; round++) {
      await Promise.all(
        walks.map(async (walk) => {
          const page = await this.queryTagIndex(feed.userId, walk.tag, {
            limit: ALL_MATCH_PAGE_SIZE,
            alsoTagged: walk.others,
            startKey: walk.startKey,
            before,
          });
          walk.found.push(...page.entries);
          walk.startKey = page.lastKey;
          walk.done = page.lastKey === undefined;
        }),
      );
      const finished = walks.find((walk) => walk.done || walk.found.length >= max);
      if (finished) return finished.found.slice(0, max);
    }
    return walks.reduce((best, walk) => (walk.found.length > best.found.length ? walk : best)).found.slice(0, max);
  }

  private async queryTagIndex(
    userId: string,
    tag: string,
    options: {
      limit: number;
      alsoTagged?: readonly string[];
      startKey?: Record<string, unknown>;
      before?: string | null;
    },
  ): Promise<{ entries: TagIndexEntry[]; lastKey?: Record<string, unknown> }> {
    const others = options.alsoTagged ?? [];
    const { Items, LastEvaluatedKey } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: LOOKUP_INDEX,
        // A later page starts below the position of the last entry served (`<updated>#<noteId>`, newest first).
        KeyConditionExpression: options.before ? 'gsi1pk = :pk AND gsi1sk < :before' : 'gsi1pk = :pk',
        ExpressionAttributeValues: {
          ':pk': keys.tagIndex(userId, tag).gsi1pk,
          ...(options.before ? { ':before': options.before } : {}),
          ...Object.fromEntries(others.map((other, i) => [`:t${i}`, other])),
        },
        ...(others.length ? { FilterExpression: others.map((_, i) => `contains(tags, :t${i})`).join(' AND ') } : {}),
        ProjectionExpression: 'noteId, gsi1sk',
        ScanIndexForward: false,
        Limit: options.limit,
        ExclusiveStartKey: options.startKey,
      }),
    );
    return {
      entries: (Items ?? []).map(readNoteEntry),
      lastKey: LastEvaluatedKey,
    };
  }
}

interface TagIndexEntry {
  readonly noteId: string;
  /** `<updated>#<noteId>`: sorts newest first. */
  readonly sortKey: string;
}

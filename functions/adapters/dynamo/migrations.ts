import { type DynamoDBDocumentClient, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { highlightsOfBody } from '../../core/save/highlights';
import { derivedId } from '../../core/save/idempotency';
import { allNotes } from '../search/note-changes';
import { DynamoBookmarkStore } from './bookmark-store';
import { writtenUnlessConditionFails } from './conditional-write';
import { highlightItem } from './entities/highlight';
import { readNote } from './entities/note';
import { readStoredToken, userTokenItem } from './entities/token';
import { readUser } from './entities/user';
import { keys } from './keys';
import { DynamoLinkStore } from './link-store';

/**
 * One-off changes to items written by an earlier version, run by `gleaner migrate`. Each migration
 * is idempotent (conditional writes), so a run that stopped half-way is finished by running again,
 * and a second run changes nothing.
 */
interface Migration {
  readonly name: string;
  readonly description: string;
  /** Runs over the whole table; counts what it changed, by kind. */
  run(doc: DynamoDBDocumentClient, tableName: string): Promise<Record<string, number>>;
}

export interface MigrationResult {
  readonly name: string;
  readonly description: string;
  readonly changed: Record<string, number>;
}

/** Items scanned per request: small enough to leave on-demand capacity to the service. */
const SCAN_PAGE_SIZE = 200;

/**
 * The list indexes `users list`, `tokens list`, `notes list` and `bookmarks list` read: users,
 * tokens and notes written before those commands existed lack them, so the lists left them out.
 * Highlights recorded before the daily review lack the user's highlights index it reads.
 */
const listIndexes: Migration = {
  name: 'list-indexes',
  description: 'Adds users, tokens and notes written before the list commands to the indexes those commands read',
  async run(doc, tableName) {
    const changed = { users: 0, tokens: 0, notes: 0, highlights: 0 };
    for await (const item of scanWithout(doc, tableName, 'gsi1pk', ['User', 'AccessToken', 'Note', 'Highlight'])) {
      if (item.type === 'User') {
        const user = readUser(item);
        if (await addIndex(doc, tableName, keys.user(user.id), keys.usersIndex(user.created, user.id))) changed.users++;
      } else if (item.type === 'AccessToken') {
        const { token, tokenHash } = readStoredToken(item);
        const indexed = await addIndex(doc, tableName, keys.token(tokenHash), keys.tokenIdIndex(token.id));
        const named = await putIfAbsent(doc, tableName, userTokenItem(token, tokenHash));
        if (indexed || named) changed.tokens++;
      } else if (item.type === 'Note') {
        const listed = keys.userNotesIndex(
          item.userId as string,
          (item.updated ?? item.created) as string,
          item.id as string,
        );
        if (await addIndex(doc, tableName, keys.note(item.id as string), listed)) changed.notes++;
      } else if (item.type === 'Highlight') {
        const indexed = keys.userHighlightsIndex(item.userId as string, item.id as string);
        if (await addIndex(doc, tableName, { pk: item.pk as string, sk: item.sk as string }, indexed))
          changed.highlights++;
      }
    }
    return changed;
  },
};

/**
 * Highlight records for notes saved before highlights were recorded on their own, read from the
 * quotes in their bodies. A note's first quote is dated by its creation, the later ones by its last
 * update (their own times were not kept). Ids derive from the note and the quote's place, so a run
 * that stopped half-way writes nothing twice when run again.
 */
const highlightRecords: Migration = {
  name: 'highlight-records',
  description: 'Records the highlights of notes saved before highlights were kept on their own, from their bodies',
  async run(doc, tableName) {
    const changed = { notes: 0, highlights: 0 };
    for await (const item of scanWithout(doc, tableName, 'highlightsRecorded', ['Note'])) {
      const noteId = item.id as string;
      const created = item.created as string;
      const updated = (item.updated as string | null | undefined) ?? created;
      // The body as read (appends included), not the attribute as last written whole.
      const found = highlightsOfBody(readNote(item).body);
      for (const [index, { quote, comment }] of found.entries()) {
        const highlight = {
          id: derivedId(`${noteId}#${index}`),
          noteId,
          userId: item.userId as string,
          quote,
          comment,
          saved: index === 0 ? created : updated,
        };
        if (await putIfAbsent(doc, tableName, highlightItem(highlight))) changed.highlights++;
      }
      // A note deleted meanwhile has nothing left to mark.
      await writtenUnlessConditionFails(() =>
        doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: keys.note(noteId),
            UpdateExpression: 'SET highlightsRecorded = :yes',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':yes': true },
          }),
        ),
      );
      changed.notes++;
    }
    return changed;
  },
};

/**
 * The links between notes and the titles notes answer to (docs/links.md) of notes saved before the
 * stream consumer kept them: each note synced from its text, as the consumer syncs it.
 */
const noteLinks: Migration = {
  name: 'note-links',
  description: 'Records the links and titles of notes saved before links between notes were kept',
  async run(doc, tableName) {
    const links = new DynamoLinkStore(doc, tableName);
    const changed = { notes: 0 };
    for await (const notes of allNotes(doc, tableName))
      for (const note of notes) if ((await links.syncNote(note)) === 'written') changed.notes++;
    return changed;
  },
};

/**
 * Kept pages for bookmarks saved before pages were kept: each bookmark without an article joins the
 * article-backfill list, from which every enrichment sweep queues a bounded number of page fetches
 * (ARTICLE_BACKFILL_PER_SWEEP, docs/articles.md). A bookmark whose article was kept before notes
 * carried its hash gives its note the hash, so the search index reads the article. Conditional
 * writes: a bookmark listed, fetched or failed already is left as it is; a fetch lost on the way (its
 * message dead-lettered) leaves the bookmark without an article and off the list, so running the
 * migration again lists it again.
 */
const articleBackfill: Migration = {
  name: 'article-backfill',
  description: 'Queues the page fetch of bookmarks saved before pages were kept, and indexes articles kept before',
  async run(doc, tableName) {
    const bookmarks = new DynamoBookmarkStore(doc, tableName);
    const changed = { queued: 0, articles: 0 };
    for await (const item of scanWithout(doc, tableName, null, ['Bookmark'])) {
      const hash = (item.article as { hash?: string | null } | undefined)?.hash;
      if (hash) {
        if (await bookmarks.noteKeepsArticle(item.noteId as string, hash)) changed.articles++;
      } else if (item.article === undefined || item.article === null) {
        const listed = keys.articleBackfill(item.id as string, item.created as string);
        const queued = await writtenUnlessConditionFails(() =>
          doc.send(
            new UpdateCommand({
              TableName: tableName,
              Key: keys.bookmark(item.id as string),
              UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk',
              ConditionExpression:
                'attribute_exists(pk) AND attribute_not_exists(article) AND attribute_not_exists(gsi1pk)',
              ExpressionAttributeValues: { ':pk': listed.gsi1pk, ':sk': listed.gsi1sk },
            }),
          ),
        );
        if (queued) changed.queued++;
      }
    }
    return changed;
  },
};

/** Every migration, in the order they run. */
const migrations: readonly Migration[] = [listIndexes, highlightRecords, noteLinks, articleBackfill];

/** Runs every migration over the table, in order. */
export async function runMigrations(doc: DynamoDBDocumentClient, tableName: string): Promise<MigrationResult[]> {
  const results: MigrationResult[] = [];
  for (const migration of migrations) {
    const changed = await migration.run(doc, tableName);
    results.push({ name: migration.name, description: migration.description, changed });
  }
  return results;
}

/** The items of the given types that lack `attribute` (all of them when null), a Scan page at a time. */
async function* scanWithout(
  doc: DynamoDBDocumentClient,
  tableName: string,
  attribute: string | null,
  types: readonly string[],
) {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  const typed = `#type IN (${types.map((_, i) => `:type${i}`).join(', ')})`;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: attribute === null ? typed : `attribute_not_exists(#attribute) AND ${typed}`,
        ExpressionAttributeNames: { ...(attribute === null ? {} : { '#attribute': attribute }), '#type': 'type' },
        ExpressionAttributeValues: Object.fromEntries(types.map((type, i) => [`:type${i}`, type])),
        Limit: SCAN_PAGE_SIZE,
        ExclusiveStartKey,
      }),
    );
    yield* page.Items ?? [];
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/** Sets an item's index attributes unless it has them (or is gone); true when it changed. */
async function addIndex(
  doc: DynamoDBDocumentClient,
  tableName: string,
  key: Record<string, string>,
  index: { gsi1pk: string; gsi1sk: string },
): Promise<boolean> {
  return writtenUnlessConditionFails(() =>
    doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gsi1pk)',
        ExpressionAttributeValues: { ':pk': index.gsi1pk, ':sk': index.gsi1sk },
      }),
    ),
  );
}

async function putIfAbsent(
  doc: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
): Promise<boolean> {
  return writtenUnlessConditionFails(() =>
    doc.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' })),
  );
}

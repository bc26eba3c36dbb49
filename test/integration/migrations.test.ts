import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { keys } from '../../functions/adapters/dynamo/keys';
import { DynamoLinkStore } from '../../functions/adapters/dynamo/link-store';
import { runMigrations } from '../../functions/adapters/dynamo/migrations';
import { DynamoReviewStore } from '../../functions/adapters/dynamo/review-store';
import { failedArticle } from '../../functions/core/article/article';
import type { EnrichmentRequest } from '../../functions/core/enrich/enrichment';
import { queueArticleBackfill } from '../../functions/core/enrich/outbox';
import type { Bookmark, Note } from '../../functions/core/model';
import { newAccessToken, newUser } from '../../functions/core/workspace/accounts';
import { createTestTable } from '../support/dynamo';
import { linkingUser, saveLinkingNote } from '../support/link-notes';

/** `gleaner migrate` against DynamoDB Local: items written before the list commands join their lists. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let store: DynamoBookmarkStore;

beforeAll(async () => {
  table = await createTestTable();
  accounts = new DynamoAccountStore(table.doc, table.tableName);
  store = new DynamoBookmarkStore(table.doc, table.tableName);
});
afterAll(() => table.client.destroy());

/** Takes an item back to how an earlier version wrote it: without the list index attributes. */
const unindex = (key: Record<string, string>) =>
  table.doc.send(
    new UpdateCommand({ TableName: table.tableName, Key: key, UpdateExpression: 'REMOVE gsi1pk, gsi1sk' }),
  );

/** A user with a token and a saved note, as written before the list commands existed. */
async function legacyWorkspace() {
  const now = new Date();
  const user = newUser({ id: randomUUID(), name: 'Early adopter', now });
  await accounts.createUser(user);
  const token = newAccessToken({ id: randomUUID(), userId: user.id, label: 'laptop', now });
  await accounts.createToken(token.record, token.hash);
  const stamp = now.toISOString();
  const bookmark: Bookmark = {
    id: randomUUID(),
    userId: user.id,
    noteId: randomUUID(),
    title: 't',
    url: 'https://example.com/',
    normalizedUrl: 'https://example.com/',
    icon: null,
    created: stamp,
    updated: stamp,
  };
  const note: Note = {
    id: bookmark.noteId,
    userId: user.id,
    bookmarkId: bookmark.id,
    url: bookmark.url,
    title: 't',
    body: 'b',
    tags: [],
    lastHighlight: null,
    created: stamp,
    updated: stamp,
    version: 1,
  };
  await store.createBookmark(bookmark, note, null, null);

  await unindex(keys.user(user.id));
  await unindex(keys.token(token.hash));
  await table.doc.send(
    new DeleteCommand({ TableName: table.tableName, Key: keys.userToken(user.id, token.record.id) }),
  );
  await unindex(keys.note(note.id));
  return { user, token, note };
}

const listedUserIds = async () => (await accounts.listUsers({ limit: 100 })).items.map((user) => user.id);

describe('gleaner migrate', () => {
  it('adds earlier users, tokens and notes to the lists, and changes nothing when run again', async () => {
    const { user, token, note } = await legacyWorkspace();
    expect(await listedUserIds()).not.toContain(user.id);
    expect(await accounts.listTokens(user.id)).toEqual([]);
    expect(await accounts.findToken(token.record.id)).toBeNull();
    expect((await store.listNotes(user.id, {}, { limit: 10 })).items).toEqual([]);

    const [first] = await runMigrations(table.doc, table.tableName);
    expect(first).toMatchObject({ name: 'list-indexes', changed: { users: 1, tokens: 1, notes: 1 } });

    expect(await listedUserIds()).toContain(user.id);
    expect((await accounts.listTokens(user.id)).map((listed) => listed.id)).toEqual([token.record.id]);
    expect((await accounts.findToken(token.record.id))?.tokenHash).toBe(token.hash);
    expect((await store.listNotes(user.id, {}, { limit: 10 })).items.map((listed) => listed.id)).toEqual([note.id]);
    expect((await store.listBookmarks(user.id, {}, { limit: 10 })).items).toHaveLength(1);

    const [second] = await runMigrations(table.doc, table.tableName);
    expect(second!.changed).toEqual({ users: 0, tokens: 0, notes: 0, highlights: 0 });
  });

  it("adds highlights recorded before the daily review to the user's highlights index it reads", async () => {
    const { user, note } = await legacyWorkspace();
    const highlightId = randomUUID();
    // As recorded before: in the note's partition, without the index attributes.
    await table.doc.send(
      new PutCommand({
        TableName: table.tableName,
        Item: {
          ...keys.highlight(note.id, note.created, highlightId),
          type: 'Highlight',
          id: highlightId,
          noteId: note.id,
          userId: user.id,
          quote: 'Early',
          comment: null,
          saved: note.created,
        },
      }),
    );
    const review = new DynamoReviewStore(table.doc, table.tableName);
    expect(await review.findHighlight(user.id, highlightId)).toBeNull();
    const [result] = await runMigrations(table.doc, table.tableName);
    expect(result!.changed.highlights).toBe(1);
    expect((await review.findHighlight(user.id, highlightId))?.quote).toBe('Early');
  });

  it('records the links and titles of notes saved before links between notes were kept', async () => {
    const user = await linkingUser(accounts);
    const target = await saveLinkingNote(store, user, { url: 'https://example.com/early', title: 'Early target' });
    const source = await saveLinkingNote(store, user, {
      url: 'https://example.com/src',
      title: 'Early source',
      comment: 'See [[early target]].',
    });
    const links = new DynamoLinkStore(table.doc, table.tableName);
    expect(await links.backlinks(user, target)).toEqual([]);
    const noteLinks = async () =>
      (await runMigrations(table.doc, table.tableName)).find((result) => result.name === 'note-links')!.changed;

    expect((await noteLinks()).notes).toBeGreaterThanOrEqual(2);
    expect(await links.backlinks(user, target)).toEqual([
      { note: { id: source.id, title: 'Early source' }, context: 'See early target.' },
    ]);
    expect(await noteLinks()).toEqual({ notes: 0 });
  });

  it('leaves items written by this version alone', async () => {
    await runMigrations(table.doc, table.tableName);
    const user = newUser({ id: randomUUID(), name: 'Recent', now: new Date() });
    await accounts.createUser(user);
    const [result] = await runMigrations(table.doc, table.tableName);
    expect(result!.changed).toEqual({ users: 0, tokens: 0, notes: 0, highlights: 0 });
    expect(await listedUserIds()).toContain(user.id);
  });

  it('lists bookmarks saved before pages were kept; each sweep queues a bounded number of their fetches, once', async () => {
    const old = await Promise.all([1, 2, 3].map(() => legacyWorkspace()));
    const oldIds = old.map(({ note }) => note.bookmarkId!);
    // An article kept before notes carried its hash: the note gets it (and a new version, for the index).
    const { note: keptNote } = await legacyWorkspace();
    const hash = 'ab'.repeat(32);
    await table.doc.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.bookmark(keptNote.bookmarkId!),
        UpdateExpression: 'SET article = :article',
        ExpressionAttributeValues: { ':article': { ...failedArticle('', new Date(), false), status: 'kept', hash } },
      }),
    );
    const backfill = async () =>
      (await runMigrations(table.doc, table.tableName)).find((result) => result.name === 'article-backfill')!.changed;
    const first = await backfill();
    expect(first.queued).toBeGreaterThanOrEqual(3); // these three (not the kept one), and any other test's since its run
    expect(first.articles).toBe(1);
    expect(await store.getNote(keptNote.id)).toMatchObject({ articleHash: hash, version: 2 });
    // Run again: nothing listed twice, no version raised again.
    expect(await backfill()).toEqual({ queued: 0, articles: 0 });

    const published: EnrichmentRequest[] = [];
    const ports = {
      bookmarks: store,
      enrichment: { publish: async (request: EnrichmentRequest) => void published.push(request) },
    };
    for (let step = await queueArticleBackfill(ports, 2); step > 0; step = await queueArticleBackfill(ports, 2))
      expect(step).toBeLessThanOrEqual(2);
    const ids = published.map((request) => request.bookmarkId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(oldIds));
    expect(ids).not.toContain(keptNote.bookmarkId);
    expect(published.every((request) => request.article && !request.scrapeDescription && !request.fetchIcon)).toBe(
      true,
    );
    expect(await queueArticleBackfill(ports, 2)).toBe(0);

    // The page worker records each one's article (here: the page failed): then nothing is listed again.
    for (const id of ids) await store.recordArticle(id, failedArticle('HTTP 500', new Date(), false));
    expect(await backfill()).toEqual({ queued: 0, articles: 0 });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import { TRASH_EXPIRY_TASK } from '../../local/stack';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { itemsOf, type Owner, savedPage, signedInUser, tableItems } from '../support/owner';
import { searchIndexAt } from '../support/search-notes';

/**
 * The Trash through the local stack over real sockets, with the stream's consumer running (search
 * index, links, and what a note deleted by its TTL leaves): the per-user API, the pages, the save
 * path and the expiry. Two users throughout, and the other user's ids on every Trash route.
 */

let t: TestStack;
let folder: string;
let alice: Owner;
let bob: Owner;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gleaner-trash-'));
  t = await startTestStack(
    { OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60', GLEANER_EMBEDDINGS: 'off' },
    { searchIndexUri: join(folder, 'index') },
  );
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
}, 60_000);
afterAll(async () => {
  await t?.stop();
  // A fold the stream's consumer started may still be writing its last files as the stack stops.
  rmSync(folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

const savePage = (owner: Owner, url: string, extra: Record<string, unknown> = {}) => savedPage(t, owner, url, extra);
const ids = (notes: { id: string }[]) => notes.map((note) => note.id);
const listed = async (owner: Owner, path = '/api/v2/me/notes') => ids((await json(await owner.api(path))).notes);
const trashed = (owner: Owner) => listed(owner, '/api/v2/me/trash');
const noteCount = async (owner: Owner) => (await json(await owner.api('/api/v2/me'))).note_count as number;
const trashNote = (owner: Owner, noteId: string) => owner.api(`/api/v2/me/notes/${noteId}`, { method: 'DELETE' });
const restore = (owner: Owner, noteId: string) => owner.api(`/api/v2/me/trash/${noteId}/restore`, { method: 'POST' });

const search = (userId: string, text: string) => searchIndexAt(join(folder, 'index'), userId, text);

/** Until `check` holds: the stream's consumer runs moments after the write. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  await vi.waitFor(async () => expect(await check()).toBe(true), { timeout: 60_000, interval: 100 });
}

describe('deleting a note moves it to the Trash', () => {
  it('takes it out of lists, tags, feeds, search, links and the cap, and Restore brings all of it back', async () => {
    const target = await savePage(alice, 'https://trash.example/glacier', {
      title: 'Glacier notes',
      selection: 'Moraines mark the furthest advance',
      comment: '#ice',
    });
    const linking = await savePage(alice, 'https://trash.example/linking', {
      comment: 'See [[Glacier notes]] and https://trash.example/glacier',
    });
    await alice.api(`/api/v2/me/notes/${target}`, { method: 'PATCH', body: { starred: true } });
    const feed = await json(
      await alice.api('/api/v2/me/feeds', { method: 'POST', body: { title: 'Ice', tags: ['ice'], sharing: 'link' } }),
    );
    const entries = async () => ids((await json(await fetch(feed.json_url))).entries);
    const links = async () =>
      (await json(await alice.api(`/api/v2/me/notes/${linking}`))).links.map(
        (link: { note: { id: string } | null }) => link.note?.id ?? null,
      );
    await eventually(async () => (await search(alice.user.id, 'moraines')).includes(target));
    expect(await entries()).toEqual([target]);
    expect(await links()).toEqual([target, target]);
    const before = await noteCount(alice);

    expect((await trashNote(alice, target)).status).toBe(204);
    expect((await alice.api(`/api/v2/me/notes/${target}`)).status).toBe(404);
    expect((await trashNote(alice, target)).status).toBe(404);
    expect(await listed(alice)).not.toContain(target);
    expect(await listed(alice, '/api/v2/me/notes?starred=true')).not.toContain(target);
    expect((await json(await alice.api('/api/v2/me/tags'))).tags).toEqual([]);
    expect(await entries()).toEqual([]);
    expect(await links()).toEqual([null, null]);
    expect(await noteCount(alice)).toBe(before - 1);
    await eventually(async () => !(await search(alice.user.id, 'moraines')).includes(target));
    const trash = await json(await alice.api('/api/v2/me/trash'));
    expect(trash.retention_days).toBe(30);
    expect(ids(trash.notes)).toEqual([target]);
    const [entry] = trash.notes;
    expect(entry).toMatchObject({ title: 'Glacier notes', tags: ['ice'], starred: true });
    expect(Date.parse(entry.purge_at) - Date.parse(entry.trashed_at)).toBe(30 * 86_400_000);
    // The other user sees none of it, and can neither restore nor delete it.
    expect(await trashed(bob)).toEqual([]);
    expect((await restore(bob, target)).status).toBe(404);
    expect((await bob.api(`/api/v2/me/trash/${target}`, { method: 'DELETE' })).status).toBe(404);
    expect(await json(await bob.api('/api/v2/me/trash', { method: 'DELETE' }))).toEqual({ deleted: 0 });
    expect(await trashed(alice)).toEqual([target]);
    // A note not in the Trash is not the Trash's to restore or delete.
    expect((await restore(alice, linking)).status).toBe(404);
    expect((await alice.api(`/api/v2/me/trash/${linking}`, { method: 'DELETE' })).status).toBe(404);

    const restored = await restore(alice, target);
    expect(restored.status).toBe(200);
    expect(await json(restored)).toMatchObject({ id: target, tags: ['ice'], starred: true });
    expect(await trashed(alice)).toEqual([]);
    expect(await listed(alice, '/api/v2/me/notes?starred=true')).toContain(target);
    expect((await json(await alice.api('/api/v2/me/tags'))).tags).toEqual([{ name: 'ice', count: 1 }]);
    expect(await entries()).toEqual([target]);
    // The link by address resolves at once; the one by title when the stream has projected the note again.
    await eventually(async () => (await links()).every((linked: string | null) => linked === target));
    expect(await noteCount(alice)).toBe(before);
    await eventually(async () => (await search(alice.user.id, 'moraines')).includes(target));
    expect((await json(await alice.api(`/api/v2/me/notes/${target}`))).highlights).toHaveLength(1);
  }, 180_000);

  it('takes the note out of the review, and its highlight cannot be rated while it is in the Trash', async () => {
    const owner = await signedInUser(t);
    const noteId = await savePage(owner, 'https://trash.example/review', { selection: 'Remember this line' });
    const [highlight] = (await json(await owner.api(`/api/v2/me/notes/${noteId}`))).highlights;
    await trashNote(owner, noteId);
    expect((await json(await owner.api('/api/v2/me/review'))).items).toEqual([]);
    const rated = await owner.api(`/api/v2/me/review/${highlight.id}`, { method: 'POST', body: { rating: 'good' } });
    expect(rated.status).toBe(404);
    await restore(owner, noteId);
    const rating = await owner.api(`/api/v2/me/review/${highlight.id}`, { method: 'POST', body: { rating: 'good' } });
    expect(rating.status).toBe(200);
  });

  it('moves notes to the Trash in bulk, and Empty trash deletes them for good, nothing of another user', async () => {
    const owner = await signedInUser(t);
    const first = await savePage(owner, 'https://trash.example/bulk-1', { selection: 'one' });
    const second = await savePage(owner, 'https://trash.example/bulk-2');
    const bobs = await savePage(bob, 'https://trash.example/bobs');
    await trashNote(bob, bobs);
    const bulk = await owner.api('/api/v2/me/notes', {
      method: 'PATCH',
      body: { ids: [first, second, bobs], action: 'delete' },
    });
    expect((await json(bulk)).results.map((result: { status: string }) => result.status)).toEqual([
      'done',
      'done',
      'not_found',
    ]);
    expect((await trashed(owner)).sort()).toEqual([first, second].sort());
    expect(await json(await owner.api('/api/v2/me/trash', { method: 'DELETE' }))).toEqual({ deleted: 2 });
    expect(await trashed(owner)).toEqual([]);
    // Its rows at once; its link and name items as the stream's consumer catches up.
    await eventually(async () => {
      const items = await tableItems(t);
      return [...itemsOf(items, first), ...itemsOf(items, second)].length === 0;
    });
    expect(await trashed(bob)).toContain(bobs);
    // The page is new again.
    expect((await json(await t.save(owner.token, { url: 'https://trash.example/bulk-1' }))).is_new_bookmark).toBe(true);
  });
});

describe('saving a page whose note is in the Trash', () => {
  it('restores the note and adds to it, and Delete forever makes the page new again', async () => {
    const noteId = await savePage(alice, 'https://trash.example/again', { selection: 'First line', comment: '#kept' });
    await trashNote(alice, noteId);
    const saved = await json(await t.save(alice.token, { url: 'https://trash.example/again', selection: 'Second' }));
    expect(saved).toMatchObject({ note_id: noteId, is_new_bookmark: false, selection_appended: true });
    expect(await trashed(alice)).not.toContain(noteId);
    const note = await json(await alice.api(`/api/v2/me/notes/${noteId}`));
    expect(note.tags).toEqual(['kept']);
    expect(note.highlights.map((highlight: { quote: string }) => highlight.quote)).toEqual(['First line', 'Second']);

    await trashNote(alice, noteId);
    expect((await alice.api(`/api/v2/me/trash/${noteId}`, { method: 'DELETE' })).status).toBe(204);
    expect(await trashed(alice)).not.toContain(noteId);
    await eventually(async () => itemsOf(await tableItems(t), noteId).length === 0);
    const anew = await json(await t.save(alice.token, { url: 'https://trash.example/again' }));
    expect(anew.is_new_bookmark).toBe(true);
    expect(anew.note_id).not.toBe(noteId);
  });

  it('frees its place under the note cap; restoring it, by hand or by saving it, is refused at the cap', async () => {
    const owner = await signedInUser(t);
    await t.table.doc.send(
      new UpdateCommand({
        TableName: t.table.tableName,
        Key: keys.user(owner.user.id),
        UpdateExpression: 'SET noteCap = :cap',
        ExpressionAttributeValues: { ':cap': 1 },
      }),
    );
    const first = await savePage(owner, 'https://trash.example/cap-1');
    expect((await t.save(owner.token, { url: 'https://trash.example/cap-2' })).status).toBe(402);
    await trashNote(owner, first);
    const second = await savePage(owner, 'https://trash.example/cap-2');
    const refused = await restore(owner, first);
    expect(refused.status).toBe(402);
    expect((await json(refused)).detail).toMatchObject({ code: 'note_limit', used: 1, limit: 1 });
    const resaved = await t.save(owner.token, { url: 'https://trash.example/cap-1', selection: 'more' });
    expect(resaved.status).toBe(402);
    expect(await trashed(owner)).toEqual([first]);
    await trashNote(owner, second);
    expect((await restore(owner, first)).status).toBe(200);
    expect(await noteCount(owner)).toBe(1);
  });
});

describe('after 30 days', () => {
  it('hides a note past its time, then deletes it for good with its bookmark, highlights and marker', async () => {
    const carol = await signedInUser(t);
    const noteId = await savePage(carol, 'https://trash.example/expiring', { selection: 'Old line' });
    const keep = await savePage(carol, 'https://trash.example/kept-in-trash');
    await trashNote(carol, noteId);
    await trashNote(carol, keep);
    // Thirty days pass for one of them: its deletion time is moved back, as if it had been trashed then.
    const past = new Date(Date.now() - 31 * 86_400_000).toISOString();
    await t.table.doc.send(
      new UpdateCommand({
        TableName: t.table.tableName,
        Key: keys.note(noteId),
        UpdateExpression: 'SET trashedAt = :past, expiresAt = :expired',
        ExpressionAttributeValues: { ':past': past, ':expired': Math.floor(Date.now() / 1000) - 86_400 },
      }),
    );
    // Until TTL has run, it is as gone: not listed, not restorable.
    expect(await trashed(carol)).toEqual([keep]);
    expect((await restore(carol, noteId)).status).toBe(404);
    expect(itemsOf(await tableItems(t), noteId).length).toBeGreaterThan(2);

    expect(await t.stack.runScheduledTask(TRASH_EXPIRY_TASK)).toBe(1);
    const { Item } = await t.table.doc.send(new GetCommand({ TableName: t.table.tableName, Key: keys.note(noteId) }));
    expect(Item).toBeUndefined();
    // The stream's consumer deletes what the note left: bookmark, saved-URL marker, highlights.
    await eventually(async () => itemsOf(await tableItems(t), noteId).length === 0);
    expect(await trashed(carol)).toEqual([keep]);
    expect((await json(await t.save(carol.token, { url: 'https://trash.example/expiring' }))).is_new_bookmark).toBe(
      true,
    );
  }, 120_000);
});

describe('the Trash page', () => {
  const visit = (owner: Owner, path: string, form?: Record<string, string>) =>
    fetch(`${t.stack.baseUrl}${path}`, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        Cookie: owner.cookie,
        ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams({ csrf: owner.csrfToken, ...form }) : undefined,
    });

  it('lists the Trash, restores, deletes forever and empties it by form, for its owner only', async () => {
    const owner = await signedInUser(t);
    const one = await savePage(owner, 'https://trash.example/page-1', { title: 'First page' });
    const two = await savePage(owner, 'https://trash.example/page-2', { title: 'Second page' });
    const three = await savePage(owner, 'https://trash.example/page-3', { title: 'Third page' });
    const moved = await visit(owner, `/library/notes/${one}/delete`, {});
    expect(moved.status).toBe(303);
    expect(moved.headers.get('Location')).toBe('/library?notice=trashed');
    await Promise.all([trashNote(owner, two), trashNote(owner, three)]);

    const page = await (await visit(owner, '/library/trash')).text();
    for (const title of ['First page', 'Second page', 'Third page']) expect(page).toContain(title);
    expect(page).toContain('deleted for good on');
    expect(await (await visit(bob, '/library/trash')).text()).not.toContain('First page');
    // The other user's posts name the owner's notes: nothing happens.
    expect((await visit(bob, '/library/trash', { apply: `restore ${one}` })).status).toBe(404);
    expect((await visit(bob, '/library/trash', { apply: `delete ${one}` })).status).toBe(404);
    expect((await trashed(owner)).sort()).toEqual([one, two, three].sort());

    const restored = await visit(owner, '/library/trash', { apply: `restore ${one}` });
    expect(restored.headers.get('Location')).toBe('/library/trash?notice=restored');
    expect(await listed(owner)).toContain(one);
    expect((await visit(owner, '/library/trash', { apply: `delete ${two}` })).status).toBe(303);
    await eventually(async () => itemsOf(await tableItems(t), two).length === 0);
    // Emptying asks to be ticked first.
    expect((await visit(owner, '/library/trash', { apply: 'empty' })).status).toBe(422);
    expect(await trashed(owner)).toEqual([three]);
    const emptied = await visit(owner, '/library/trash', { apply: 'empty', confirm: 'empty' });
    expect(emptied.headers.get('Location')).toBe('/library/trash?notice=emptied');
    expect(await trashed(owner)).toEqual([]);
    expect(await (await visit(owner, '/library/trash?notice=emptied')).text()).toContain('The Trash is empty.');
  });
});

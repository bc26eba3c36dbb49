import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { type OwnerPorts, retag } from '../../functions/core/owner/library';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, savedPage, signedInUser } from '../support/owner';

/**
 * Issue 31: a rename edited the notes one by one inside a 10 s function; cut short, it left the
 * notes split across two tags, and repeating it answered 409 (the new name was in use, by its own
 * first run). It is a job now: recorded before the first note moves, listed as unfinished while it
 * is, and carried on by repeating it.
 */

let t: TestStack;
let alice: Owner;
let bob: Owner;
beforeAll(async () => {
  t = await startTestStack();
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
});
afterAll(() => t?.stop());

/** The core's retag over the stack's stores, its notes store failing from the `failAt`th note edit on (a function timing out). */
function interruptedRetag(failAt: number) {
  let edits = 0;
  const notes = new Proxy(t.bookmarks, {
    get(store, name, receiver) {
      if (name !== 'editNote') return Reflect.get(store, name, receiver);
      return (...args: Parameters<DynamoBookmarkStore['editNote']>) => {
        if (++edits >= failAt) throw new Error('Task timed out after 10.00 seconds');
        return store.editNote(...args);
      };
    },
  });
  const ports = { notes, feeds: t.feeds, now: () => new Date() } as unknown as OwnerPorts;
  return (owner: Owner, from: string, to: string) =>
    retag(ports, { userId: owner.user.id } as never, from, to, 'rename');
}

const tags = async (owner: Owner) => json(await owner.api('/api/v2/me/tags'));

describe('renaming a tag', () => {
  it('cut short, lists itself as unfinished; repeated, carries on to the end (no 409); another rename waits for it', async () => {
    for (let i = 0; i < 7; i++) await savedPage(t, alice, `https://example.com/retag/${i}`, { comment: '#aws' });
    await savedPage(t, bob, 'https://example.com/retag/0', { comment: '#aws' });
    const feed = await json(
      await alice.api('/api/v2/me/feeds', { method: 'POST', body: { title: 'AWS', tags: ['aws'] } }),
    );

    await expect(interruptedRetag(4)(alice, 'aws', 'amazon')).rejects.toThrow(/timed out/);
    const cut = await tags(alice);
    // Split across both tags for now, and said so.
    expect(cut.tags).toEqual([
      { name: 'amazon', count: 3 },
      { name: 'aws', count: 4 },
    ]);
    expect(cut.unfinished).toEqual([
      { tag: 'aws', into: 'amazon', mode: 'rename', notes_changed: 3, started: expect.any(String) },
    ]);
    // Bob's tag is his own: untouched, nothing unfinished on his side.
    expect(await tags(bob)).toEqual({ tags: [{ name: 'aws', count: 1 }] });

    // Another rename or a merge of the same tag meanwhile would split it three ways: refused.
    const other = await alice.api('/api/v2/me/tags/aws', { method: 'PATCH', body: { name: 'cloud' } });
    expect(other.status).toBe(409);
    expect(JSON.stringify((await json(other)).detail)).toMatch(/rename of aws into amazon is unfinished/);
    const merge = await alice.api('/api/v2/me/tags/aws/merge', { method: 'POST', body: { into: 'amazon' } });
    expect(merge.status).toBe(409);

    // Cut short again, it still carries on from where it is.
    await expect(interruptedRetag(2)(alice, 'aws', 'amazon')).rejects.toThrow(/timed out/);
    expect((await tags(alice)).unfinished[0].notes_changed).toBe(4);

    const repeated = await alice.api('/api/v2/me/tags/aws', { method: 'PATCH', body: { name: 'amazon' } });
    expect(repeated.status).toBe(200);
    expect(await json(repeated)).toEqual({ tag: 'amazon', notes_changed: 7 });
    expect(await tags(alice)).toEqual({ tags: [{ name: 'amazon', count: 7 }] });
    expect((await json(await alice.api(`/api/v2/me/feeds/${feed.id}`))).tags).toEqual(['amazon']);
    expect(await tags(bob)).toEqual({ tags: [{ name: 'aws', count: 1 }] });

    // Finished, the job is gone: renaming onto a name in use is the 409 it always was.
    await savedPage(t, alice, 'https://example.com/retag/other', { comment: '#cloud' });
    expect((await alice.api('/api/v2/me/tags/amazon', { method: 'PATCH', body: { name: 'cloud' } })).status).toBe(409);
  });
});

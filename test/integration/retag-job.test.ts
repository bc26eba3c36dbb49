import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { Deadline } from '../../functions/core/deadline';
import { type OwnerPorts, retag } from '../../functions/core/owner/library';
import { isoTimestamp } from '../../functions/core/text/text';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, renameUnderWay, savedPage, signedInUser } from '../support/owner';

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

/** The core's retag over the stack's stores, each note edit first through `beforeEdit` (given how many so far). */
function retagWatched(beforeEdit: (edits: number) => void, deadline?: Deadline) {
  let edits = 0;
  const notes = new Proxy(t.bookmarks, {
    get(store, name, receiver) {
      if (name !== 'editNote') return Reflect.get(store, name, receiver);
      return (...args: Parameters<DynamoBookmarkStore['editNote']>) => {
        beforeEdit(++edits);
        return store.editNote(...args);
      };
    },
  });
  const ports = { notes, feeds: t.feeds, now: () => new Date() } as unknown as OwnerPorts;
  return (owner: Owner, from: string, to: string) =>
    retag(ports, { userId: owner.user.id } as never, from, to, 'rename', deadline);
}

/** The core's retag, its notes store failing from the `failAt`th note edit on (a function timing out). */
function interruptedRetag(failAt: number) {
  return retagWatched((edits) => {
    if (edits >= failAt) throw new Error('Task timed out after 10.00 seconds');
  });
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

/** The core's retag with a time budget that runs out after `edits` note edits. */
function budgetedRetag(edits: number) {
  let made = 0;
  // A budget of 10 s on a clock that stands still until the `edits`th edit, then jumps to its end.
  const deadline = Deadline.after(10_000, () => (made >= edits ? 10_000 : 0));
  return retagWatched((count) => {
    made = count;
  }, deadline);
}

describe('a rename that takes longer than its time budget', () => {
  it('stops cleanly with its progress recorded, answers unfinished, and the sweeper finishes it; another user’s job is left alone', async () => {
    const [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
    for (let i = 0; i < 6; i++) await savedPage(t, alice, `https://example.com/budget/${i}`, { comment: '#ml' });
    for (let i = 0; i < 2; i++) await savedPage(t, bob, `https://example.com/budget/${i}`, { comment: '#ml' });
    const feed = await json(
      await alice.api('/api/v2/me/feeds', { method: 'POST', body: { title: 'ML', tags: ['ml'] } }),
    );
    // Bob's own rename of the same tag, under way in a run of his (its lease ahead): not the sweeper's to take.
    const bobsJob = await renameUnderWay(t, bob, 'ml', 'learning');

    expect(await budgetedRetag(3)(alice, 'ml', 'ai')).toEqual({ tag: 'ai', notes_changed: 3, unfinished: true });
    // Where it stopped is on record: split across both tags for now, and said so.
    expect(await tags(alice)).toEqual({
      tags: [expect.objectContaining({ name: 'ai', count: 3 }), expect.objectContaining({ name: 'ml', count: 3 })],
      unfinished: [expect.objectContaining({ tag: 'ml', into: 'ai', notes_changed: 3 })],
    });

    // Nobody repeats it: the scheduled sweep carries it on to the end.
    const sweep = (await t.stack.runScheduledTask('EnrichmentSweeper')) as { retags: unknown };
    expect(sweep.retags).toEqual({ resumed: 1, finished: 1 });
    expect(await tags(alice)).toEqual({ tags: [{ name: 'ai', count: 6 }] });
    expect((await json(await alice.api(`/api/v2/me/feeds/${feed.id}`))).tags).toEqual(['ai']);

    // Bob's notes and his job are as they were.
    expect(await tags(bob)).toEqual({
      tags: [{ name: 'ml', count: 2 }],
      unfinished: [{ tag: 'ml', into: 'learning', mode: 'rename', notes_changed: 0, started: bobsJob.started }],
    });
    expect(await t.bookmarks.retagJobs(bob.user.id)).toEqual([bobsJob]);
  });

  it('is taken up by the sweeper once the lease of a run that died has passed, not before', async () => {
    const carol = await signedInUser(t);
    for (let i = 0; i < 2; i++) await savedPage(t, carol, `https://example.com/died/${i}`, { comment: '#go' });
    const died = await renameUnderWay(t, carol, 'go', 'golang');
    await t.stack.runScheduledTask('EnrichmentSweeper');
    expect((await tags(carol)).unfinished).toHaveLength(1);
    // Its lease passed (the run's function timed out long ago).
    await t.bookmarks.recordRetagJob({ ...died, resumeAt: isoTimestamp(new Date(Date.now() - 1000)) });
    await t.stack.runScheduledTask('EnrichmentSweeper');
    expect(await tags(carol)).toEqual({ tags: [{ name: 'golang', count: 2 }] });
  });
});

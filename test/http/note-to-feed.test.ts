import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedShowsNote, tagsToJoinFeed } from '../../functions/core/feed/settings';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { mcpClientOf, type Owner, signedInUser } from '../support/owner';

/**
 * One rule puts a note into a feed (core's tagsToJoinFeed) and says which notes a feed shows (core's
 * feedShowsNote): the owner API, the note page and MCP each put a note in through it, and the
 * published feed and the note page show by it. The expectations are the rule's own answers, so a
 * change of the rule in core changes what every front end does. Two users: another's note or feed is
 * not found on each.
 */

let t: TestStack;
let alice: Owner;
let bob: Owner;
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestStack({ OWNER_RATE_LIMIT: '5000;w=60' });
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t?.stop();
});

/** What a front end answered: done (with the tags it added, when it says), or not found. */
type Placed = { readonly found: true; readonly tagsAdded?: readonly string[] } | { readonly found: false };

/** Each front end's way of putting `owner`'s note into a feed. */
const fronts: Record<string, (owner: Owner, noteId: string, feedId: string) => Promise<Placed>> = {
  async 'owner API'(owner, noteId, feedId) {
    const response = await owner.api(`/api/v2/me/feeds/${feedId}/notes/${noteId}`, { method: 'PUT' });
    if (response.status === 404) return { found: false };
    expect(response.status).toBe(200);
    return { found: true, tagsAdded: (await json(response)).tags_added };
  },
  async 'note page'(owner, noteId, feedId) {
    const response = await fetch(`${t.stack.baseUrl}/library/notes/${noteId}/feeds`, {
      method: 'POST',
      redirect: 'manual',
      headers: { Cookie: owner.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: owner.csrfToken, feed_id: feedId }),
    });
    if (response.status === 404) return { found: false };
    expect(response.status).toBe(303);
    expect(response.headers.get('Location')).toMatch(new RegExp(`/library/notes/${noteId}\\?notice=inFeed`));
    return { found: true };
  },
  async MCP(owner, noteId, feedId) {
    const client = await mcpClientOf(t, owner, ['feeds:write']);
    clients.push(client);
    const result = await client.callTool({ name: 'add_note_to_feed', arguments: { note_id: noteId, feed_id: feedId } });
    if (result.isError) return { found: false };
    return { found: true, tagsAdded: (result.structuredContent as { tags_added: string[] }).tags_added };
  },
};

async function savedNote(owner: Owner, url: string, comment: string) {
  const saved = await json(await t.save(owner.token, { url, comment }));
  return json(await owner.api(`/api/v2/me/notes/${saved.note_id}`));
}

describe.each(Object.keys(fronts))('a note put into a feed through the %s', (front) => {
  const put = fronts[front]!;

  it('gets the tags the rule names, shows in the feed and on its page as the rule says, and is not found for another user', async () => {
    // A tag of this front's own, so the feeds of the other fronts' runs never show its note.
    const slug = front.replace(/\W/g, '').toLowerCase();
    const note = await savedNote(alice, `https://example.com/${slug}`, `#${slug}`);
    const feed = await json(
      await alice.api('/api/v2/me/feeds', {
        method: 'POST',
        body: { title: `Both ${slug}`, tags: ['ai', slug], match: 'all', sharing: 'public' },
      }),
    );
    const bobsNote = await savedNote(bob, `https://example.com/${slug}`, `#${slug}`);
    const bobsFeed = await json(
      await bob.api('/api/v2/me/feeds', { method: 'POST', body: { title: 'Bob', tags: [slug], sharing: 'public' } }),
    );
    expect(feedShowsNote(feed, note.tags)).toBe(false);
    const needed = tagsToJoinFeed(feed, note.tags);

    // Another user's note, or another user's feed: not found, and nothing changes.
    expect(await put(bob, note.id, bobsFeed.id)).toEqual({ found: false });
    expect(await put(alice, note.id, bobsFeed.id)).toEqual({ found: false });
    expect(await put(alice, bobsNote.id, feed.id)).toEqual({ found: false });
    expect((await json(await alice.api(`/api/v2/me/notes/${note.id}`))).tags).toEqual(note.tags);
    expect((await json(await bob.api(`/api/v2/me/notes/${bobsNote.id}`))).tags).toEqual(bobsNote.tags);

    const placed = await put(alice, note.id, feed.id);
    expect(placed.found).toBe(true);
    if (placed.found && placed.tagsAdded) expect(placed.tagsAdded).toEqual(needed);
    const after = await json(await alice.api(`/api/v2/me/notes/${note.id}`));
    expect([...after.tags].sort()).toEqual([...note.tags, ...needed].sort());
    expect(feedShowsNote(feed, after.tags)).toBe(true);

    // The published feed lists it; the note page says the feed shows it.
    const published = await json(await fetch(`${t.stack.baseUrl}/api/v2/publisher/feeds/${feed.id}/public`));
    expect(published.entries.map((entry: { id: string }) => entry.id)).toEqual([note.id]);
    const notePage = await (
      await fetch(`${t.stack.baseUrl}/library/notes/${note.id}`, { headers: { Cookie: alice.cookie } })
    ).text();
    expect(notePage).toContain(`Both ${slug} <span class="muted">shows this note</span>`);

    // Again: the feed shows it already, nothing is added.
    const again = await put(alice, note.id, feed.id);
    expect(again.found).toBe(true);
    if (again.found && again.tagsAdded) expect(again.tagsAdded).toEqual([]);
    expect((await json(await alice.api(`/api/v2/me/notes/${note.id}`))).tags).toEqual(after.tags);
    // Bob's feed of the same tag shows his note only, never Alice's.
    const bobsPublished = await json(await fetch(`${t.stack.baseUrl}/api/v2/publisher/feeds/${bobsFeed.id}/public`));
    expect(bobsPublished.entries.map((entry: { id: string }) => entry.id)).toEqual([bobsNote.id]);
  });
});

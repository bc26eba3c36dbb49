import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import { contractFetch } from '../support/contract';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type Owner, oauthAccessToken, signedInUser } from '../support/owner';

/**
 * The daily review through the per-user API and its private feed, over real sockets with the real
 * authentication; every answer is checked against openapi-v2.json (contractFetch). Two users with
 * highlights of their own: neither ever sees, nor rates, the other's.
 */

let t: TestStack;
let alice: Owner;
let bob: Owner;
let aliceHighlights: string[];
let bobHighlights: string[];

/** Saves `count` pages with a selection each; the highlight ids, as the note API shows them. */
async function highlightsOf(owner: Owner, count: number, name: string): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const saved = await t.save(owner.token, {
      url: `https://example.com/${name}/${index}`,
      title: `${name} page ${index}`,
      selection: `${name} quote ${index}`,
    });
    expect(saved.status).toBe(200);
    const note = await json(await owner.api(`/api/v2/me/notes/${(await json(saved)).note_id}`));
    ids.push(...note.highlights.map((highlight: { id: string }) => highlight.id));
  }
  return ids;
}

beforeAll(async () => {
  t = await startTestStack({ OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60' });
  [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
  aliceHighlights = await highlightsOf(alice, 7, 'alice');
  bobHighlights = await highlightsOf(bob, 7, 'bob');
});
afterAll(() => t.stop());

const rate = (owner: Owner, highlightId: string, rating: unknown) =>
  owner.api(`/api/v2/me/review/${highlightId}`, { method: 'POST', body: { rating } });

describe('the day’s review', () => {
  it('gives the same five of the caller’s own highlights on every read, with text, note title, source URL and position', async () => {
    const first = await json(await alice.api('/api/v2/me/review'));
    expect(first.items).toHaveLength(5);
    expect(first.items.map((item: { position: number }) => item.position)).toEqual([1, 2, 3, 4, 5]);
    for (const item of first.items) {
      expect(aliceHighlights).toContain(item.highlight_id);
      const index = /alice quote (\d)/.exec(item.text)![1];
      expect(item).toMatchObject({
        note_title: `alice page ${index}`,
        source_url: `https://example.com/alice/${index}`,
        rated: false,
      });
    }
    expect(first).toMatchObject({ completed: false, streak: 0, reviews_done: 0, time_zone: 'UTC' });
    expect(await json(await alice.api('/api/v2/me/review'))).toEqual(first);
    const other = await json(await bob.api('/api/v2/me/review'));
    for (const item of other.items) expect(bobHighlights).toContain(item.highlight_id);
  });

  it('rates a highlight: its next due date, the streak and the count; the day completes once all are rated', async () => {
    const { items } = await json(await bob.api('/api/v2/me/review'));
    const rated = await rate(bob, items[0].highlight_id, 'good');
    expect(rated.status).toBe(200);
    const answer = await json(rated);
    expect(answer).toMatchObject({ highlight_id: items[0].highlight_id, rating: 'good', streak: 1, reviews_done: 1 });
    expect(Date.parse(answer.next_due)).toBeGreaterThan(Date.now());
    expect(await json(await rate(bob, items[1].highlight_id, 'discard'))).toMatchObject({ next_due: null });
    for (const item of items.slice(2)) expect((await rate(bob, item.highlight_id, 'easy')).status).toBe(200);
    const done = await json(await bob.api('/api/v2/me/review'));
    expect(done).toMatchObject({ completed: true, streak: 1, reviews_done: 5 });
    expect(done.items.every((item: { rated: boolean }) => item.rated)).toBe(true);
  });

  it("answers 404 for another user's highlight (and changes nothing of theirs), 422 for an unknown rating or id", async () => {
    const before = await json(await alice.api('/api/v2/me/review'));
    const stolen = await rate(bob, aliceHighlights[0]!, 'easy');
    expect(stolen.status).toBe(404);
    expect(await json(stolen)).toEqual({ detail: 'No such highlight' });
    expect(await json(await alice.api('/api/v2/me/review'))).toEqual(before);

    const unknown = await rate(alice, aliceHighlights[0]!, 'maybe');
    expect(unknown.status).toBe(422);
    expect((await json(unknown)).detail).toEqual([
      {
        loc: ['body', 'rating'],
        msg: "Input should be 'again', 'hard', 'good', 'easy' or 'discard'",
        type: 'value_error',
      },
    ]);
    expect((await rate(alice, aliceHighlights[0]!, undefined)).status).toBe(422);
    expect((await rate(alice, 'not-a-uuid', 'good')).status).toBe(422);
    expect(await json(await alice.api('/api/v2/me/review'))).toEqual(before);
  });
});

describe('review settings', () => {
  it('defaults, validates (size 3–15, an IANA time zone, a tag not both favoured and muted), and are per user', async () => {
    const carol = await signedInUser(t);
    const settings = () => carol.api('/api/v2/me/review-settings');
    const change = (body: unknown) => carol.api('/api/v2/me/review-settings', { method: 'PATCH', body });
    expect(await json(await settings())).toEqual({ size: 5, time_zone: 'UTC', favoured_tags: [], muted_tags: [] });
    for (const body of [
      { size: 2 },
      { size: 16 },
      { size: 5.5 },
      { time_zone: 'Mars/Olympus_Mons' },
      { time_zone: '' },
      { favoured_tags: ['rust'], muted_tags: ['#Rust'] },
      { muted_tags: 'rust' },
    ]) {
      const refused = await change(body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect((await json(refused)).detail[0].loc[0]).toBe('body');
    }
    const changed = await change({ size: 15, time_zone: 'Pacific/Pago_Pago', favoured_tags: ['#Rust', 'go'] });
    expect(changed.status).toBe(200);
    const expected = { size: 15, time_zone: 'Pacific/Pago_Pago', favoured_tags: ['rust', 'go'], muted_tags: [] };
    expect(await json(changed)).toEqual(expected);
    expect(await json(await settings())).toEqual(expected);
    expect((await json(await alice.api('/api/v2/me/review-settings'))).size).toBe(5);
  });
});

describe('OAuth access', () => {
  it('takes the review scope for the review, and a browser session to issue the feed', async () => {
    const withReview = await oauthAccessToken(t, alice.user.id, ['review']);
    const withoutReview = await oauthAccessToken(t, alice.user.id, ['notes:read', 'notes:write']);
    const call = (path: string, token: string, method = 'GET', body?: unknown) =>
      contractFetch(`${t.stack.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect((await call('/api/v2/me/review', withReview)).status).toBe(200);
    expect((await call('/api/v2/me/review', withoutReview)).status).toBe(403);
    const highlight = aliceHighlights[6]!;
    expect((await call(`/api/v2/me/review/${highlight}`, withoutReview, 'POST', { rating: 'good' })).status).toBe(403);
    expect((await call(`/api/v2/me/review/${highlight}`, withReview, 'POST', { rating: 'good' })).status).toBe(200);
    expect((await call('/api/v2/me/review-settings', withoutReview)).status).toBe(403);
    expect((await call('/api/v2/me/review-feed', withReview)).status).toBe(200);
    expect((await call('/api/v2/me/review-feed', withReview, 'POST')).status).toBe(403);
    expect((await call('/api/v2/me/review-feed', withReview, 'DELETE')).status).toBe(403);
  });
});

describe('the private review feed', () => {
  it("serves the caller's days as RSS at an unguessable address, until it is re-issued or revoked (then 404)", async () => {
    const dave = await signedInUser(t);
    await highlightsOf(dave, 3, 'dave');
    const status = async () => json(await dave.api('/api/v2/me/review-feed'));
    expect(await status()).toEqual({ active: false, issued: null });
    const issue = async () => {
      const issued = await dave.api('/api/v2/me/review-feed', { method: 'POST' });
      expect(issued.status).toBe(201);
      expect(issued.headers.get('Cache-Control')).toBe('no-store');
      return (await json(issued)).url as string;
    };
    const first = await issue();
    expect(first).toMatch(/\/review-feed\/[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    expect((await status()).active).toBe(true);
    const read = (url: string) => contractFetch(`${t.stack.baseUrl}${new URL(url).pathname}`);
    const feed = await read(first);
    expect(feed.status).toBe(200);
    expect(feed.headers.get('Content-Type')).toMatch(/^application\/rss\+xml/);
    expect(feed.headers.get('Cache-Control')).toMatch(/private/);
    const rss = await feed.text();
    expect(rss).toContain('dave quote 0');
    expect(rss).not.toContain('alice quote');
    // A reader polling with the ETag gets 304 without the body; HEAD gets the headers alone.
    const etag = feed.headers.get('ETag');
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const path = `${t.stack.baseUrl}${new URL(first).pathname}`;
    const unchanged = await contractFetch(path, { headers: { 'If-None-Match': etag! } });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(unchanged.headers.get('ETag')).toBe(etag);
    expect((await contractFetch(path, { headers: { 'If-None-Match': '"something else"' } })).status).toBe(200);
    const head = await contractFetch(path, { method: 'HEAD' });
    expect([head.status, head.headers.get('ETag'), await head.text()]).toEqual([200, etag, '']);

    const second = await issue();
    expect((await read(first)).status).toBe(404);
    const reissued = await read(second);
    expect(reissued.status).toBe(200);
    expect(reissued.headers.get('ETag')).not.toBe(etag);
    // Another user's id with this secret, or a made-up secret, opens nothing.
    expect((await read(second.replace(dave.user.id, alice.user.id))).status).toBe(404);
    expect((await read(`${t.stack.baseUrl}/review-feed/nothing`)).status).toBe(404);

    expect((await dave.api('/api/v2/me/review-feed', { method: 'DELETE' })).status).toBe(204);
    expect((await read(second)).status).toBe(404);
    expect(await status()).toEqual({ active: false, issued: null });
  });
});

describe('a stored record that does not read', () => {
  it('answers 500 in the contract’s shape naming only the request, and builds no day over it', async () => {
    const erin = await signedInUser(t);
    await t.table.doc.send(
      new PutCommand({
        TableName: t.table.tableName,
        Item: { ...keys.reviewSettings(erin.user.id), type: 'ReviewSettings', settings: { size: 'five' } },
      }),
    );
    const answer = await erin.api('/api/v2/me/review');
    expect(answer.status).toBe(500);
    const { detail } = await json(answer);
    expect(detail).toMatch(/^Internal server error \(request id [\w-]+\)$/);
    const { Items = [] } = await t.table.doc.send(
      new QueryCommand({
        TableName: t.table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :day)',
        ExpressionAttributeValues: { ':pk': keys.user(erin.user.id).pk, ':day': keys.reviewDay('', '').sk },
      }),
    );
    expect(Items).toEqual([]);
    // The others' reviews read as before.
    expect((await alice.api('/api/v2/me/review')).status).toBe(200);
  });
});

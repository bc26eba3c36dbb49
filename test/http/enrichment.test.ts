import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import { json, startTestStack, type TestStack } from '../support/local-stack';

/** Save → page worker → favicon worker → icon route, against fixture sites on loopback. */

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><rect width="1" height="1"/></svg>';
const hits = new Map<string, number>();
let site: Server;
let origin: string;
let otherSite: string;
let t: TestStack;

function page(head: string): string {
  return `<!doctype html><html><head><title>t</title>${head}</head><body>${'filler '.repeat(1000)}</body></html>`;
}

const routes: Record<
  string,
  (request: IncomingMessage) => {
    status?: number;
    type: string;
    body: string | Buffer;
    headers?: Record<string, string>;
  }
> = {
  '/article': () => ({
    type: 'text/html; charset=utf-8',
    body: page(
      '<meta name="description" content="  An   article &amp; more. "><link rel="icon" href="/static/icon.png">',
    ),
  }),
  '/second': () => ({ type: 'text/html', body: page('<meta property="og:description" content="Second page">') }),
  '/described': () => ({ type: 'text/html', body: page('<meta name="description" content="Scraped, not wanted">') }),
  '/latin1': () => ({
    type: 'text/html; charset=iso-8859-1',
    body: Buffer.concat([
      Buffer.from('<html><head><meta name="description" content="Caf'),
      Buffer.from([0xe9]),
      Buffer.from(' cr'),
      Buffer.from([0xe8]),
      Buffer.from('me"></head></html>'),
    ]),
  }),
  '/gone': () => ({ status: 404, type: 'text/html', body: 'not here' }),
  '/report.pdf': () => ({ type: 'application/pdf', body: '%PDF-1.4' }),
  '/huge-header': () => ({ type: 'text/html', body: page(''), headers: { 'X-Padding': 'a'.repeat(100 * 1024) } }),
  '/static/icon.png': () => ({ type: 'image/png', body: PNG }),
  '/favicon.ico': () => ({ status: 404, type: 'text/plain', body: 'no' }),
};

beforeAll(async () => {
  site = createServer((request, response) => {
    const path = new URL(request.url!, 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path];
    const answer = route ? route(request) : { status: 404, type: 'text/plain', body: 'unknown' };
    response.writeHead(answer.status ?? 200, {
      'Content-Type': answer.type,
      ...('headers' in answer ? answer.headers : {}),
    });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const { port } = site.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  otherSite = `http://localhost:${port}`;
  t = await startTestStack(
    { GLEANER_FETCH_ALLOW: `127.0.0.1:${port},localhost:${port}`, OUTBOX_GRACE_SECONDS: '0' },
    { startWorkers: true },
  );
});
afterAll(async () => {
  await t.stop();
  site.close();
});

const bookmarkItem = async (id: string) =>
  (
    await t.table.doc.send(
      new GetCommand({ TableName: t.table.tableName, Key: keys.bookmark(id), ConsistentRead: true }),
    )
  ).Item!;

async function settled(bookmarkId: string) {
  await vi.waitFor(async () => expect((await bookmarkItem(bookmarkId)).pageStatus).toMatch(/done|failed/), {
    timeout: 20_000,
    interval: 100,
  });
  await Promise.all(Object.values(t.stack.queues).map((queue) => queue.whenEmpty()));
  return bookmarkItem(bookmarkId);
}

describe('background enrichment', () => {
  it('puts the scraped description into the note and sets an icon URL that serves the image', async () => {
    const { token } = await t.createUser();
    const saved = await json(await t.save(token, { url: `${origin}/article`, title: 'Article', selection: 'quote' }));
    expect(saved.bookmark.icon).toBeNull();
    await settled(saved.bookmark.id);

    const note = await t.bookmarks.getNote(saved.note_id);
    expect(note?.body).toBe(`An article & more.\n\nSource: [Article](${origin}/article)\n\n> quote`);
    const bookmark = await t.bookmarks.getBookmark(saved.bookmark.id);
    expect(bookmark?.icon).toMatch(new RegExp(`^${t.stack.baseUrl}/icons/[0-9a-f]{64}\\.png$`));
    // The description changed the note, so the bookmark's update time moved with it, as on an append.
    expect(note!.updated).not.toBe(saved.bookmark.updated);
    expect(bookmark?.updated).toBe(note!.updated);

    const icon = await fetch(bookmark!.icon!);
    expect(icon.status).toBe(200);
    expect(Buffer.from(await icon.arrayBuffer())).toEqual(PNG);
    expect(icon.headers.get('Content-Type')).toBe('image/png');
    expect(icon.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
    expect(icon.headers.get('X-Content-Type-Options')).toBe('nosniff');

    const head = await fetch(bookmark!.icon!, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('Content-Type')).toBe('image/png');
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it("reuses a host's icon for later bookmarks without fetching it again", async () => {
    const { token } = await t.createUser();
    const before = hits.get('/static/icon.png') ?? 0;
    const first = await json(await t.save(token, { url: `${origin}/article?again=1` }));
    await settled(first.bookmark.id);
    const second = await json(await t.save(token, { url: `${origin}/second` }));
    expect(second.bookmark.icon).toMatch(/\/icons\/[0-9a-f]{64}\.png$/);
    await settled(second.bookmark.id);
    expect(hits.get('/static/icon.png') ?? 0).toBe(before);
    expect((await t.bookmarks.getNote(second.note_id))?.body.startsWith('Second page\n\nSource:')).toBe(true);
  });

  it('never overwrites a description the user supplied', async () => {
    const { token } = await t.createUser();
    // `localhost` is another site than `127.0.0.1`: its favicon is unknown, so the page is fetched.
    const saved = await json(await t.save(token, { url: `${otherSite}/described`, description: 'Mine' }));
    const item = await settled(saved.bookmark.id);
    expect(item.enrichment).toEqual({ scrapeDescription: false, fetchIcon: true });
    expect((await t.bookmarks.getNote(saved.note_id))?.body).toBe(
      `Mine\n\nSource: [${otherSite}/described](${otherSite}/described)`,
    );
  });

  it('decodes pages in other charsets', async () => {
    const { token } = await t.createUser();
    const saved = await json(await t.save(token, { url: `${origin}/latin1` }));
    await settled(saved.bookmark.id);
    expect((await t.bookmarks.getNote(saved.note_id))?.body.startsWith('Café crème\n\n')).toBe(true);
  });

  it.each([
    ['a 404 page', '/gone', 'HTTP 404'],
    ['a page that is not HTML', '/report.pdf', 'not HTML'],
    ['a page whose headers are over the size limit', '/huge-header', 'protocol'],
  ])('records %s as a final outcome after one fetch', async (_, path, reason) => {
    const { token } = await t.createUser();
    const saved = await json(await t.save(token, { url: `${origin}${path}` }));
    const item = await settled(saved.bookmark.id);
    expect(item).toMatchObject({ pageStatus: 'failed', pageError: expect.stringContaining(reason) });
    expect(item.gsi1pk).toBeUndefined();
    expect(hits.get(path)).toBe(1);
  });

  it('changes nothing when the same message is delivered twice', async () => {
    const { token } = await t.createUser();
    const saved = await json(await t.save(token, { url: `${origin}/article?twice=1` }));
    await settled(saved.bookmark.id);
    const body = (await t.bookmarks.getNote(saved.note_id))?.body;
    const { enrichment } = t.stack.queues;
    const deadLetters = enrichment.deadLetters.length;
    // The message the save sent, delivered again (SQS delivers at least once): taken, not retried.
    enrichment.send(JSON.stringify({ bookmarkId: saved.bookmark.id, scrapeDescription: true, fetchIcon: true }));
    await enrichment.whenEmpty();
    expect(enrichment.deadLetters.length).toBe(deadLetters);
    expect((await t.bookmarks.getNote(saved.note_id))?.body).toBe(body);
  });

  it('still enriches a save whose publish to SQS failed, through the outbox sweep', async () => {
    const { token } = await t.createUser();
    t.stack.queues.enrichment.failNextSends = 10;
    const response = await t.save(token, { url: `${origin}/article?outbox=1` });
    expect(response.status).toBe(200);
    const saved = await json(response);
    expect(t.stack.queues.enrichment.depth).toBe(0);
    t.stack.queues.enrichment.failNextSends = 0;
    // It waits in the outbox since its save, which the sweep reports as the oldest wait (the outbox alarm's metric).
    const pending = await t.bookmarks.pendingEnrichments(new Date(Date.now() + 60_000).toISOString(), 25);
    expect(pending.find(({ request }) => request.bookmarkId === saved.bookmark.id)?.pendingSince).toBe(
      saved.bookmark.created,
    );

    await t.stack.runScheduledTask('EnrichmentSweeper');
    const item = await settled(saved.bookmark.id);
    expect(item.pageStatus).toBe('done');
    expect((await t.bookmarks.getNote(saved.note_id))?.body.startsWith('An article & more.')).toBe(true);
  });
});

describe('the icon route', () => {
  it('serves SVG icons with a policy that stops scripts, and 404s unknown icons', async () => {
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256').update(SVG).digest('hex');
    const { DynamoSiteStore } = await import('../../functions/adapters/dynamo/site-store');
    await new DynamoSiteStore(t.table.doc, t.table.tableName).putIcon({
      hash,
      mediaType: 'image/svg+xml',
      bytes: Buffer.from(SVG),
    });
    const svg = await fetch(`${t.stack.baseUrl}/icons/${hash}.svg`);
    expect(svg.headers.get('Content-Type')).toBe('image/svg+xml');
    expect(svg.headers.get('Content-Security-Policy')).toMatch(/default-src 'none'.*sandbox/);
    expect(await svg.text()).toBe(SVG);
    const missing = await fetch(`${t.stack.baseUrl}/icons/${'0'.repeat(64)}.png`);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ detail: { code: 'not_found', message: 'Icon not found' } });
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { webPaths } from '../../functions/core/web/paths';
import { settings } from '../../functions/platform/settings';
import { writeLocalState } from '../../local/state';
import { gleanerInProcess } from '../support/cli';
import { savedAndFetched, startStackWithSite } from '../support/fixture-site';
import { json } from '../support/local-stack';
import { mcpClientOf, type Owner, signedInUser } from '../support/owner';

/**
 * Save → the page worker keeps the article (the local stack's article folder) → the article route,
 * for two users; the page gone on a refetch keeps its copy; deleting a note or an account deletes
 * its stored objects (counted in the folder).
 */

const ARTICLE = readFileSync(new URL('../fixtures/articles/news-politics.html', import.meta.url), 'utf8').replace(
  '</h1>',
  '</h1><figure><img src="/media/council.png" alt="The council chamber"><figcaption>The chamber.</figcaption></figure>',
);
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
let pageStatus = 200;
let { t, alice, bob, origin, stop } = {} as Awaited<ReturnType<typeof startStackWithSite>>;

beforeAll(async () => {
  ({ t, alice, bob, origin, stop } = await startStackWithSite(
    (request, response) => {
      if (request.url === '/media/council.png')
        return void response.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG);
      if (request.url?.startsWith('/story')) {
        if (pageStatus !== 200) return void response.writeHead(pageStatus).end('gone');
        return void response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(ARTICLE);
      }
      response.writeHead(404).end();
    },
    { OWNER_RATE_LIMIT: '5000;w=60', SAVE_RATE_LIMIT: '5000;w=60' },
  ));
});
afterAll(() => stop?.());

const articleFolder = () => join(t.stack.env[settings.articleStore.name]!, 'articles');
const storedObjects = (bookmarkId: string) => {
  try {
    return readdirSync(join(articleFolder(), bookmarkId), { recursive: true, withFileTypes: true }).filter(
      (entry) => entry.isFile() && !entry.name.endsWith('.type'),
    ).length;
  } catch {
    return 0;
  }
};

async function keptNote(owner: Owner, path: string) {
  const saved = await savedAndFetched(t, owner, { url: `${origin}${path}`, title: 'Budget story' });
  return { noteId: saved.note_id as string, bookmarkId: saved.bookmark.id as string };
}

describe('kept articles', () => {
  it("keeps a saved page's article with its image, for its owner only", async () => {
    const { noteId, bookmarkId } = await keptNote(alice, '/story-1');
    const response = await alice.api(`/api/v2/me/notes/${noteId}/article`);
    expect(response.status).toBe(200);
    const article = await json(response);
    expect(article).toMatchObject({
      status: 'kept',
      reason: null,
      title: expect.stringContaining('City council passes a budget'),
      byline: 'Maria Okafor',
      site_name: 'The Daily Ledger',
      language: 'en',
      source_status: 'live',
      notice: null,
    });
    expect(article.word_count).toBeGreaterThan(150);
    expect(article.reading_minutes).toBeGreaterThanOrEqual(1);
    expect(article.text).toContain('the city council voted seven to four on Tuesday night');
    expect(article.text).not.toContain('Accept all cookies');
    const image = /<img[^>]*src="([^"]+)"/.exec(article.html)?.[1];
    expect(image).toMatch(new RegExp(`^${t.stack.baseUrl}/articles/${bookmarkId}/images/[0-9a-f]{64}\\.png$`));
    expect(storedObjects(bookmarkId)).toBe(2); // the content and the image
    // Served from the service's own address, as an icon is, but cached a day only.
    const served = await fetch(image!);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    expect(served.headers.get('Content-Type')).toBe('image/png');
    expect(served.headers.get('Cache-Control')).toBe('public, max-age=86400');
    expect(served.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const unknown = image!.replace(/[0-9a-f]{64}/, '0'.repeat(64));
    expect((await fetch(unknown)).status).toBe(404);
    expect((await fetch(`${t.stack.baseUrl}/articles/..%2F..%2Fetc/images/x.png`)).status).toBe(404);

    // Bob cannot read Alice's article: the same 404 as an unknown note.
    expect((await bob.api(`/api/v2/me/notes/${noteId}/article`)).status).toBe(404);
    expect((await bob.api(`/api/v2/me/notes/${crypto.randomUUID()}/article`)).status).toBe(404);
  });

  it('shows the kept page on the note page, and keeps the last copy when a refetch finds the page gone', async () => {
    const { noteId, bookmarkId } = await keptNote(alice, '/story-4');
    const notePage = (owner: Owner) =>
      fetch(`${t.stack.baseUrl}/library/notes/${noteId}`, { headers: { Cookie: owner.cookie } });
    const shown = await (await notePage(alice)).text();
    expect(shown).toContain('<article class="reader" lang="en">');
    expect(shown).toContain('the city council voted seven to four on Tuesday night');
    expect(shown).toMatch(new RegExp(`<img[^>]*src="/articles/${bookmarkId}/images/[0-9a-f]{64}\\.png"`));
    expect(shown).not.toContain('Accept all cookies');
    expect(shown).not.toMatch(/<script(?! type="module" src="\/)/);

    pageStatus = 410;
    try {
      const kept = (await json(await alice.api(`/api/v2/me/notes/${noteId}/article`))).kept as string;
      const refetch = (owner: Owner) =>
        fetch(`${t.stack.baseUrl}/library/notes/${noteId}/refetch`, {
          method: 'POST',
          redirect: 'manual',
          headers: { Cookie: owner.cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf: owner.csrfToken }).toString(),
        });
      expect((await refetch(bob)).status).toBe(404);
      expect((await refetch(alice)).status).toBe(303);
      await vi.waitFor(
        async () =>
          expect((await json(await alice.api(`/api/v2/me/notes/${noteId}/article`))).source_status).toBe('gone'),
        { timeout: 30_000, interval: 100 },
      );
      const article = await json(await alice.api(`/api/v2/me/notes/${noteId}/article`));
      expect(article).toMatchObject({
        status: 'kept',
        kept,
        notice: `The page is gone; this copy was kept on ${kept.slice(0, 10)}`,
      });
      expect(article.text).toContain('the city council voted seven to four');
      expect(await (await notePage(alice)).text()).toContain(
        `The page is gone; this copy was kept on ${kept.slice(0, 10)}`,
      );
    } finally {
      pageStatus = 200;
    }
  });

  it("MCP get_note carries the kept page's text, a piece at a time, to its owner only", async () => {
    const { noteId } = await keptNote(alice, '/story-5');
    const full = (await json(await alice.api(`/api/v2/me/notes/${noteId}/article`))).text as string;
    const connect = (owner: Owner) => mcpClientOf(t, owner, ['notes:read']);
    const client = await connect(alice);
    const answer = await client.callTool({ name: 'get_note', arguments: { note_id: noteId } });
    const article = (answer.structuredContent as { article: Record<string, unknown> }).article;
    expect(article).toMatchObject({ status: 'kept', from: 0, next_from: null, total_chars: full.length, text: full });
    const later = await client.callTool({ name: 'get_note', arguments: { note_id: noteId, article_from: 100 } });
    expect((later.structuredContent as { article: { text: string } }).article.text).toBe(full.slice(100));
    await client.close();

    const stranger = await connect(bob);
    const refused = await stranger.callTool({ name: 'get_note', arguments: { note_id: noteId } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).not.toContain('city council');
    await stranger.close();
  });

  it('the JSON export carries each kept article to its owner, and importing it keeps the article again', async () => {
    const { noteId } = await keptNote(alice, '/story-6');
    const kept = await json(await alice.api(`/api/v2/me/notes/${noteId}/article`));
    const exported = await json(await alice.api('/api/v2/me/export'));
    const entry = exported.bookmarks.find((bookmark: { url: string }) => bookmark.url === `${origin}/story-6`);
    expect(entry.article).toMatchObject({
      status: 'kept',
      title: kept.title,
      byline: 'Maria Okafor',
      site_name: 'The Daily Ledger',
      language: 'en',
      word_count: kept.word_count,
      text: kept.text,
      html: kept.html,
      kept: kept.kept,
    });
    // Another user's export carries none of it.
    const other = JSON.stringify(await json(await bob.api('/api/v2/me/export')));
    expect(other).not.toContain('story-6');
    expect(other).not.toContain('seven to four');

    // The CLI's export is the same; its import into a fresh user keeps the article again.
    const dataDir = mkdtempSync(join(tmpdir(), 'gleaner-articles-cli-'));
    try {
      writeLocalState(dataDir, {
        pid: process.pid,
        baseUrl: t.stack.baseUrl,
        dynamoEndpoint: t.table.endpoint,
        tableName: t.table.tableName,
      });
      const env = { GLEANER_DATA_DIR: dataDir, [settings.articleStore.name]: t.stack.env[settings.articleStore.name]! };
      const cli = await gleanerInProcess(['export', '--user', alice.user.id, '--format', 'json'], env);
      expect(cli.code).toBe(0);
      const file = join(dataDir, 'export.json');
      writeFileSync(file, cli.stdout);
      const carol = await signedInUser(t);
      const imported = await gleanerInProcess(['import', '--user', carol.user.id, file, '--json'], env);
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout)).toMatchObject({ articles: expect.any(Number) });
      const notes = await json(await carol.api('/api/v2/me/notes?limit=100'));
      const restored = notes.notes.find((note: { url: string }) => note.url === `${origin}/story-6`);
      const again = await json(await carol.api(`/api/v2/me/notes/${restored.id}/article`));
      expect(again).toMatchObject({
        status: 'kept',
        title: kept.title,
        byline: 'Maria Okafor',
        site_name: 'The Daily Ledger',
        language: 'en',
        word_count: kept.word_count,
        text: kept.text,
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("published feeds carry the owner's note, never the kept article (JSON, RSS, Atom, JSON Feed, the page)", async () => {
    const saved = await json(
      await t.save(alice.token, {
        url: `${origin}/story-7`,
        title: 'Budget story',
        selection: 'A quote the owner chose.',
        comment: 'Worth reading #civic',
      }),
    );
    await vi.waitFor(
      async () =>
        expect((await json(await alice.api(`/api/v2/me/notes/${saved.note_id}/article`))).status).toBe('kept'),
      { timeout: 30_000, interval: 100 },
    );
    const notes = await t.createFeed(alice.user.id, { title: 'Civic', tags: ['civic'], sharing: 'public' });
    const highlights = await t.createFeed(alice.user.id, {
      title: 'Civic quotes',
      tags: ['civic'],
      sharing: 'public',
      items: 'highlights',
    });
    for (const feed of [notes, highlights]) {
      for (const path of [
        `/api/v2/publisher/feeds/${feed.id}/public`,
        `/api/v2/publisher/feeds/${feed.id}/rss`,
        `/feeds/${feed.id}/atom`,
        `/feeds/${feed.id}/feed.json`,
        `/feeds/${feed.id}`,
      ]) {
        const response = await fetch(`${t.stack.baseUrl}${path}`);
        expect(response.status, path).toBe(200);
        const body = await response.text();
        // The owner's words are there; not a sentence of the kept page.
        expect(body, path).toContain('A quote the owner chose.');
        expect(body, path).not.toContain('seven to four');
        expect(body, path).not.toContain('Maria Okafor');
        expect(body, path).not.toContain(`/articles/${saved.bookmark.id}/`);
      }
    }
  });

  it("the Account page shows the bytes the user's kept pages and images take, the user's alone", async () => {
    const [dave, erin] = await Promise.all([signedInUser(t), signedInUser(t)]);
    const storage = async (owner: Owner) => {
      const page = await (await owner.api(webPaths.account)).text();
      return { bytes: Number(/data-storage="(\d+)"/.exec(page)?.[1]), line: /Kept pages: [^<]*/.exec(page)?.[0] };
    };
    expect(await storage(dave)).toEqual({ bytes: 0, line: 'Kept pages: 0 pages, 0 bytes with their images.' });
    const kept = [await keptNote(dave, '/story-8'), await keptNote(dave, '/story-9')];
    // The bytes on disk: each article's content and its image (not the media type beside each file).
    const onDisk = kept
      .flatMap(({ bookmarkId }) =>
        readdirSync(join(articleFolder(), bookmarkId), { recursive: true, withFileTypes: true }).filter(
          (entry) => entry.isFile() && !entry.name.endsWith('.type'),
        ),
      )
      .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
    expect(onDisk).toBeGreaterThan(PNG.length);
    // The note learns of its article just after the bookmark's row does.
    await vi.waitFor(async () => expect((await storage(dave)).bytes).toBe(onDisk), { timeout: 10_000, interval: 100 });
    const shown = await storage(dave);
    expect(shown.line).toMatch(/^Kept pages: 2 pages, \d+\.\d kB with their images\.$/);
    // Erin keeps nothing; Dave's pages are not hers.
    expect((await storage(erin)).bytes).toBe(0);
    expect((await dave.api(`/api/v2/me/notes/${kept[0]!.noteId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await storage(dave)).line).toMatch(/^Kept pages: 1 page, /);
  });

  it('deleting the note for good deletes its article and images; deleting an account deletes all of its', async () => {
    const one = await keptNote(bob, '/story-2');
    const two = await keptNote(bob, '/story-3');
    expect(storedObjects(one.bookmarkId)).toBe(2);
    // In the Trash the note can be restored, its kept page with it.
    expect((await bob.api(`/api/v2/me/notes/${one.noteId}`, { method: 'DELETE' })).status).toBe(204);
    expect(storedObjects(one.bookmarkId)).toBe(2);
    expect((await bob.api(`/api/v2/me/trash/${one.noteId}`, { method: 'DELETE' })).status).toBe(204);
    expect(storedObjects(one.bookmarkId)).toBe(0);
    expect(storedObjects(two.bookmarkId)).toBe(2);

    const deleted = await bob.api('/api/v2/me', { method: 'DELETE', body: { confirm: 'delete my account' } });
    expect(deleted.status).toBe(204);
    expect(storedObjects(two.bookmarkId)).toBe(0);
  });
});

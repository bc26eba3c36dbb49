import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { webPaths } from '../../functions/core/web/paths';
import { startStackWithSite } from '../support/fixture-site';
import { json } from '../support/local-stack';
import { mcpClientOf, type Owner } from '../support/owner';

/**
 * A word found only in a kept article's body finds its note: save → the page worker keeps the page →
 * the note's version moves → the stream's indexer reads the article's text into the index → search
 * (the per-user API, the web app's results, MCP search_notes) finds it with a snippet from the body.
 * Two users keep pages that share a word; neither ever finds the other's article.
 */

/** A page whose prose (well over Readability's threshold) holds `word` in its body alone. */
function page(title: string, word: string): string {
  const filler = (n: number) =>
    `<p>The heathland path climbs slowly from the car park past gorse and heather, and walkers stop at the ${n} marker to rest, drink water and look across the valley towards the distant reservoir while skylarks sing overhead and the wind moves through the grass.</p>`;
  return `<!DOCTYPE html><html lang="en"><head><title>${title}</title></head><body>
<nav><a href="/">Home</a></nav><article><h1>${title}</h1>
${filler(1)}${filler(2)}
<p>Near the pond at the top, the rare ${word} grows in the shallow water, and the rangers count it every summer.</p>
${filler(3)}${filler(4)}</article><footer>Footer text</footer></body></html>`;
}

let folder: string;
let { t, alice, bob, origin, stop } = {} as Awaited<ReturnType<typeof startStackWithSite>>;
let aliceNote: string;
let aliceTitled: string;
let bobNote: string;

const search = (owner: Owner, q: string) => owner.api(`/api/v2/me/search?${new URLSearchParams({ q })}`).then(json);
const hitIds = (body: { results: { note_id: string }[] }) => body.results.map((hit) => hit.note_id);

async function save(owner: Owner, body: Record<string, unknown>): Promise<string> {
  const response = await t.save(owner.token, body);
  expect(response.status).toBe(200);
  return ((await response.json()) as { note_id: string }).note_id;
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gleaner-article-search-'));
  ({ t, alice, bob, origin, stop } = await startStackWithSite(
    (request, response) => {
      const pages: Record<string, string> = {
        '/alice-walk': page('A walk on the moor', 'quillwort'),
        '/bob-walk': page('Another walk on the moor', 'saxifrage'),
      };
      const body = pages[request.url ?? ''];
      if (!body) return void response.writeHead(404).end();
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body);
    },
    { GLEANER_EMBEDDINGS: 'off' },
    { searchIndexUri: join(folder, 'index') },
  ));
  // The description is given, so the note itself holds none of the article's words.
  aliceNote = await save(alice, { url: `${origin}/alice-walk`, title: 'Saturday', description: 'A day out.' });
  bobNote = await save(bob, { url: `${origin}/bob-walk`, title: 'Sunday', description: 'A day out.' });
  // A note of Alice's that names the word in its title, with no kept page (its address answers 404).
  aliceTitled = await save(alice, { url: `${origin}/missing`, title: 'Quillwort identification', description: 'x' });
  await vi.waitFor(
    async () => {
      expect(hitIds(await search(alice, 'quillwort'))).toContain(aliceNote);
      expect(hitIds(await search(bob, 'heathland'))).toEqual([bobNote]);
    },
    { timeout: 60_000, interval: 200 },
  );
}, 120_000);

afterAll(async () => {
  await stop?.();
  rmSync(folder, { recursive: true, force: true });
});

describe('the kept article in search', () => {
  it('finds a word only in the article, with a snippet from the body, for its owner only', async () => {
    const found = await search(alice, 'quillwort');
    // A title match outranks a match in a kept page's body.
    expect(hitIds(found)).toEqual([aliceTitled, aliceNote]);
    const hit = found.results.find((result: { note_id: string }) => result.note_id === aliceNote);
    expect(hit.snippet).toContain('the rare <mark>quillwort</mark> grows in the shallow water');
    expect(hit.title).toBe('Saturday');

    // Bob's article shares every other word: his search never finds Alice's article, nor hers his.
    expect(hitIds(await search(bob, 'quillwort'))).toEqual([]);
    expect(hitIds(await search(alice, 'saxifrage'))).toEqual([]);
    expect(hitIds(await search(bob, 'saxifrage'))).toEqual([bobNote]);
    expect(hitIds(await search(alice, 'heathland reservoir'))).toEqual([aliceNote]);
    // Phrases and prefixes reach the body too.
    expect(hitIds(await search(alice, '"shallow water"'))).toEqual([aliceNote]);
    expect(hitIds(await search(alice, 'skylar*'))).toEqual([aliceNote]);
  });

  it("shows the body's snippet in the web app's results", async () => {
    const page = await alice.api(`${webPaths.search}?${new URLSearchParams({ q: 'quillwort' })}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('the rare <mark>quillwort</mark> grows');
    const other = await (await bob.api(`${webPaths.search}?${new URLSearchParams({ q: 'quillwort' })}`)).text();
    expect(other).not.toContain('quillwort</mark>');
    expect(other).not.toContain(aliceNote);
  });

  it('MCP search_notes finds the body for its owner only', async () => {
    const connect = (owner: Owner) => mcpClientOf(t, owner, ['notes:read']);
    const client = await connect(alice);
    const answer = await client.callTool({ name: 'search_notes', arguments: { query: 'quillwort' } });
    const { results } = answer.structuredContent as {
      results: { note_id: string; snippet: { text: string; match: boolean }[] }[];
    };
    const hit = results.find((result) => result.note_id === aliceNote);
    expect(hit?.snippet).toContainEqual({ text: 'quillwort', match: true });
    expect(hit?.snippet.map((piece) => piece.text).join('')).toContain('the rare quillwort grows in the shallow water');
    await client.close();
    const stranger = await connect(bob);
    const none = await stranger.callTool({ name: 'search_notes', arguments: { query: 'quillwort' } });
    expect(JSON.stringify(none)).not.toContain(aliceNote);
    expect(JSON.stringify(none)).not.toContain('grows in the shallow');
    await stranger.close();
  });
});

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetcher } from '../../functions/adapters/safe-fetch';
import type { ArticleRecord } from '../../functions/core/article/article';
import type { FetchOutcome } from '../../functions/core/enrich/enrichment';
import { type EnrichPagePorts, enrichPage } from '../../functions/core/enrich/page-enrichment';
import { ARTICLE_BASE_URL, memoryArticlePorts } from '../support/article-ports';

/**
 * The article corpus (test/fixtures/articles): realistic pages of many kinds, each with its golden
 * expectation, run through the page worker's step as a saved page is: fetched through the safe fetcher
 * from a local server (so the 5 MB cap is the real one), extracted, sanitized, stored.
 */

interface GoldenPage {
  readonly file: string;
  readonly url: string;
  readonly contentType?: string;
  readonly status: 'kept' | 'partial';
  readonly title: string | null;
  readonly byline: string | null;
  readonly language?: string | null;
  readonly direction?: 'rtl';
  readonly published?: string;
  /** Sentences the kept text must hold. */
  readonly keep: readonly string[];
  /** Chrome (navigation, ads, forms, scripts) that must not be kept. */
  readonly drop: readonly string[];
  /** Images the kept copy must show from the service's own address. */
  readonly images?: number;
  /** Padded to this many bytes before it is served (a page over the size cap). */
  readonly padTo?: number;
}

const FOLDER = new URL('../fixtures/articles/', import.meta.url);
const GOLDEN = JSON.parse(readFileSync(new URL('golden.json', FOLDER), 'utf8')) as GoldenPage[];
const PAGE_MAX_BYTES = 5 * 1024 * 1024;

/** The fixture's bytes as served: padded past the cap when the golden asks for it. */
function fixtureBody(page: GoldenPage): Buffer {
  const body = readFileSync(new URL(page.file, FOLDER));
  if (!page.padTo) return body;
  const padding = `<div hidden class="tracking-data">${'x'.repeat(page.padTo - body.length)}</div>`;
  return Buffer.from(body.toString('utf8').replace('<!-- PADDING -->', padding));
}

/** A small PNG, different for every address, so each image gets its own content hash. */
function pngFor(url: string): FetchOutcome {
  const body = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(url)]);
  return { ok: true, url, status: 200, contentType: 'image/png', body, truncated: false };
}

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const page = GOLDEN.find(({ file }) => `/${file}` === request.url);
    if (!page) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': page.contentType ?? 'text/html; charset=utf-8' });
    response.end(fixtureBody(page));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs one page through the page step; answers the recorded article and the stored content. */
async function keep(page: GoldenPage) {
  const fetcher = createSafeFetcher({ allow: [origin], totalTimeoutMs: 60_000 });
  const recorded: ArticleRecord[] = [];
  const articles = memoryArticlePorts(() => new Date('2026-01-01T00:00:00Z'));
  const ports: EnrichPagePorts = {
    bookmarks: {
      getBookmark: async (id) => ({
        id,
        userId: 'u1',
        noteId: 'n1',
        title: 't',
        url: page.url,
        normalizedUrl: page.url,
        icon: null,
        created: '2026-01-01T00:00:00+00:00',
        updated: '2026-01-01T00:00:00+00:00',
        pageStatus: 'done',
      }),
      setIcon: async () => {},
      recordPageOutcome: async () => {},
      recordArticle: async (_id, article) => {
        recorded.push(article);
        return true;
      },
    },
    notes: { updateSavedNote: async () => ({ kind: 'unchanged' }) as never },
    sites: { getSite: async () => null },
    favicons: { publish: async () => {} },
    // Served from the fixture server, read as the page worker reads a page; the page keeps its own address.
    fetchPage: async () => {
      const response = await fetcher.fetch(`http://${origin}/${page.file}`, { maxBytes: PAGE_MAX_BYTES });
      return { ok: true, ...response, url: page.url };
    },
    articles: { ...articles, fetchImage: async (url) => pngFor(url) },
    iconRefreshMs: 0,
    now: () => new Date('2026-01-01T00:00:00Z'),
  };
  await enrichPage(
    ports,
    { bookmarkId: 'b1', scrapeDescription: false, fetchIcon: false, article: true },
    {
      number: 1,
      max: 1,
    },
  );
  expect(recorded).toHaveLength(1);
  return { article: recorded[0]!, content: await articles.store.getContent('b1'), store: articles.store };
}

describe('the article corpus', () => {
  it('has at least 30 pages of every kind the issue names', () => {
    expect(GOLDEN.length).toBeGreaterThanOrEqual(30);
    for (const kind of [
      'news',
      'blog-long-figures',
      'docs-code',
      'recipe',
      'forum-thread',
      'german',
      'arabic-rtl',
      'lazy-images',
      'amp',
      'paywall-stub',
      'app-shell',
      'pdf-link',
      'big-6mb',
    ])
      expect(GOLDEN.some(({ file }) => file.includes(kind))).toBe(true);
  });

  for (const page of GOLDEN) {
    it(`${page.file}: ${page.status}, with its title, byline and sentences, without its chrome`, async () => {
      const { article, content, store } = await keep(page);
      expect(article.status).toBe(page.status);
      expect(article.status === 'kept' ? article.reason : article.reason).toEqual(
        page.status === 'kept' ? null : expect.any(String),
      );
      if (page.title) expect(article.title).toContain(page.title);
      expect(article.byline ? article.byline.replace(/^By\s+/i, '') : null).toBe(page.byline);
      if (page.language !== undefined) expect(article.language).toBe(page.language);
      if (page.direction) expect(article.direction).toBe(page.direction);
      if (page.published) expect(Date.parse(article.published ?? '')).toBe(Date.parse(page.published));
      const text = content?.text ?? '';
      for (const sentence of page.keep) expect(text).toContain(sentence);
      for (const chrome of page.drop) {
        expect(text).not.toContain(chrome);
        expect(content?.html ?? '').not.toContain(chrome);
      }
      expect(content?.html ?? '').not.toMatch(/<script|<iframe|<form|<style|\son\w+=|javascript:/i);
      expect(content === null).toBe(article.hash === null);
      if (content) {
        expect(article.wordCount).toBeGreaterThan(0);
        expect(article.hash).toMatch(/^[0-9a-f]{64}$/);
      }
      if (page.images !== undefined) {
        const sources = [...(content?.html ?? '').matchAll(/<img[^>]*src="([^"]+)"/g)].map(([, src]) => src!);
        expect(new Set(sources).size).toBe(page.images);
        for (const src of sources) expect(src.startsWith(`${ARTICLE_BASE_URL}/articles/b1/images/`)).toBe(true);
        expect(article.images).toBe(page.images);
        expect([...store.objects.keys()].filter((key) => key.includes('/images/'))).toHaveLength(page.images);
      }
    }, 120_000);
  }
});

import { readFileSync } from 'node:fs';
import { keepArticle } from '../functions/core/article/article';
import type { FetchOutcome } from '../functions/core/enrich/enrichment';
import { memoryArticlePorts } from '../test/support/article-ports';

/**
 * The article corpus (test/fixtures/articles) through the page worker's keeping step, in process:
 * the time to extract, sanitize and store each HTML page (its images answered from memory), and what
 * a kept page stores. The 6 MB page is read to the worker's 5 MB cap, as the fetcher would.
 */

const FOLDER = new URL('../test/fixtures/articles/', import.meta.url);
const PAGE_MAX_BYTES = 5 * 1024 * 1024;

interface GoldenPage {
  readonly file: string;
  readonly url: string;
  readonly contentType?: string;
  readonly padTo?: number;
}

export interface ArticleMeasures {
  /** Milliseconds per page, one entry per HTML page of the corpus. */
  readonly times: number[];
  /** Pages measured, and the slowest one. */
  readonly pages: number;
  readonly slowest: string;
  /** Mean bytes stored per kept page: its content, and its images. */
  readonly contentBytes: number;
  readonly imageBytes: number;
  /** Mean images kept per page. */
  readonly images: number;
}

export async function measureArticles(): Promise<ArticleMeasures> {
  const golden = JSON.parse(readFileSync(new URL('golden.json', FOLDER), 'utf8')) as GoldenPage[];
  const times: number[] = [];
  let slowest = { file: '', ms: 0 };
  let contentBytes = 0;
  let imageBytes = 0;
  let images = 0;
  const pages = golden.filter((page) => !page.contentType);
  for (const page of pages) {
    let html = readFileSync(new URL(page.file, FOLDER), 'utf8');
    if (page.padTo)
      html = html.replace('<!-- PADDING -->', `<div hidden>${'x'.repeat(page.padTo - html.length)}</div>`);
    const truncated = Buffer.byteLength(html) > PAGE_MAX_BYTES;
    if (truncated) html = Buffer.from(html).subarray(0, PAGE_MAX_BYTES).toString('utf8');
    const ports = memoryArticlePorts(() => new Date());
    const image = (url: string): FetchOutcome => ({
      ok: true,
      url,
      status: 200,
      contentType: 'image/jpeg',
      // A typical article image: 120 KB.
      body: Buffer.alloc(120 * 1024, url),
      truncated: false,
    });
    const began = performance.now();
    const record = await keepArticle({ ...ports, fetchImage: async (url) => image(url) }, 'bench', {
      html,
      url: page.url,
      truncated,
    });
    const elapsed = performance.now() - began;
    times.push(elapsed);
    if (elapsed > slowest.ms) slowest = { file: page.file, ms: elapsed };
    const stored = [...ports.store.objects.entries()];
    contentBytes += stored
      .filter(([key]) => key.endsWith('content.json'))
      .reduce((sum, [, o]) => sum + o.bytes.length, 0);
    imageBytes += stored.filter(([key]) => key.includes('/images/')).reduce((sum, [, o]) => sum + o.bytes.length, 0);
    images += record.images;
  }
  return {
    times,
    pages: pages.length,
    slowest: slowest.file,
    contentBytes: contentBytes / pages.length,
    imageBytes: imageBytes / pages.length,
    images: images / pages.length,
  };
}

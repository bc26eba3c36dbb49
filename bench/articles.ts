import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { keys } from '../functions/adapters/dynamo/keys';
import { keepArticle } from '../functions/core/article/article';
import type { FetchOutcome } from '../functions/core/enrich/enrichment';
import { newAccessToken, newUser } from '../functions/core/workspace/accounts';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { startLocalStack } from '../local/stack';
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

/** Saves timed from their answer to their article kept (`npm run bench`'s save-to-kept row). */
const KEPT_LAG_SAVES = 20;

/**
 * Save-to-kept lag through the local stack: a save answers, the enrichment queue hands it to the page
 * worker, which fetches the page (a corpus news page with a figure, from a local server), keeps its
 * article and image and records it on the bookmark's row; the time from the save's answer to that
 * row, per save (milliseconds).
 */
export async function measureSaveToKept(): Promise<number[]> {
  const page = readFileSync(new URL('news-politics.html', FOLDER), 'utf8').replace(
    '</h1>',
    '</h1><figure><img src="/figure.jpg" alt="A figure"><figcaption>The chamber.</figcaption></figure>',
  );
  const site = createServer((request, response) => {
    if (request.url === '/figure.jpg')
      return void response.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(Buffer.alloc(120 * 1024, 7));
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const dynamo = await startDynamoDbLocal();
  const tableName = `bench-kept-${randomUUID()}`;
  const { client, doc } = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
  const stack = await startLocalStack({
    dynamoEndpoint: dynamo.endpoint,
    tableName,
    startWorkers: true,
    env: { LOG_LEVEL: 'SILENT', SAVE_RATE_LIMIT: '100000;w=60', GLEANER_FETCH_ALLOW: origin.slice('http://'.length) },
  });
  try {
    const now = new Date();
    const accounts = new DynamoAccountStore(doc, tableName);
    const user = newUser({ id: randomUUID(), name: 'Bench', now });
    await accounts.createUser(user);
    const token = newAccessToken({ id: randomUUID(), userId: user.id, now });
    await accounts.createToken(token.record, token.hash);
    const lags: number[] = [];
    for (let i = 0; i < KEPT_LAG_SAVES; i++) {
      const response = await fetch(`${stack.baseUrl}/api/v1/bookmarks/save`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token.secret}` },
        body: JSON.stringify({ url: `${origin}/story-${i}`, title: `Kept probe ${i}` }),
      });
      if (!response.ok) throw new Error(`save answered ${response.status}`);
      const answered = performance.now();
      const { bookmark } = (await response.json()) as { bookmark: { id: string } };
      for (;;) {
        const { Item } = await doc.send(
          new GetCommand({ TableName: tableName, Key: keys.bookmark(bookmark.id), ConsistentRead: true }),
        );
        const status = (Item?.article as { status?: string } | undefined)?.status;
        if (status === 'kept') break;
        if (status) throw new Error(`the page was not kept: ${status}`);
        if (performance.now() - answered > 30_000) throw new Error('a page was not kept within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      lags.push(performance.now() - answered);
    }
    return lags;
  } finally {
    await stack.stop();
    client.destroy();
    await dynamo.stop();
    site.close();
  }
}

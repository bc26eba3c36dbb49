import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchDocument } from '../../functions/core/search/document';
import { testEmbedder } from '../../functions/core/search/embedder';
import { searchNotes } from '../../functions/core/search/search';
import { createHandler } from '../../functions/search-indexer/handler';
import { context } from '../support/factories';
import { searchableNote, temporaryIndex } from '../support/search-notes';

/**
 * A change of embedding model, re-embedded in the background: notes indexed without vectors of the
 * configured model are embedded by the indexer's scheduled step (EventBridge on AWS, a timer in
 * `npm start`), and search stays keyword, saying why, until the vectors cover the user's notes.
 * The model is an OpenAI-compatible endpoint on loopback serving the deterministic test embedder.
 */
const model = testEmbedder(16);
let server: Server;
let url: string;
let calls = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', async () => {
      calls++;
      const { input } = JSON.parse(body) as { input: string[] };
      const vectors = await model.embed(input, 'document');
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ data: vectors.map((embedding, index) => ({ index, embedding })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/embeddings`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('the scheduled re-embedding step', () => {
  it('embeds what the new model lacks, and search turns hybrid only once every note is covered', async () => {
    const { index, folder, dispose } = await temporaryIndex();
    try {
      const user = randomUUID();
      const other = randomUUID();
      const notes = [
        ...Array.from({ length: 120 }, (_, i) => searchableNote(user, { title: `Glacier survey ${i}` })),
        searchableNote(other, { title: 'Glacier elsewhere' }),
      ];
      // Indexed before the model was configured: keywords only.
      await index.upsert(notes.map(searchDocument));
      const env = {
        SEARCH_INDEX_URI: folder,
        TABLE_NAME: 'unused',
        GLEANER_EMBEDDINGS_URL: url,
        GLEANER_EMBEDDINGS_MODEL: 'test-model',
        LOG_LEVEL: 'SILENT',
        POWERTOOLS_METRICS_DISABLED: 'true',
      };
      const embedder = { model: 'openai-compatible:test-model', embed: model.embed };
      const before = await searchNotes({ index, embedder }, user, 'glacier');
      expect(before.ok && before.answer.mode).toBe('keyword');
      expect(before.ok && before.answer.reason).toMatch(/cover 0 of 120 notes/);

      const handler = createHandler(env);
      const scheduled = { source: 'aws.events', 'detail-type': 'Scheduled Event' } as ScheduledEvent;
      const run = await handler(scheduled, context('SearchIndexer', 120_000));
      expect(run.reembedded).toBe(121);
      expect(calls).toBeGreaterThanOrEqual(3);
      const after = await searchNotes({ index, embedder }, user, 'glacier');
      expect(after.ok && after.answer.mode).toBe('hybrid');
      expect(after.ok && after.answer.reason).toBeUndefined();
      // Nothing is left to embed: the next run does nothing.
      expect((await handler(scheduled, context('SearchIndexer', 120_000))).reembedded).toBe(0);
    } finally {
      dispose();
    }
  });

  it('does nothing without an embedding model', async () => {
    const { folder, dispose } = await temporaryIndex();
    try {
      const handler = createHandler({
        SEARCH_INDEX_URI: folder,
        TABLE_NAME: 'unused',
        LOG_LEVEL: 'SILENT',
        GLEANER_EMBEDDINGS: 'off',
      });
      const scheduled = { source: 'aws.events', 'detail-type': 'Scheduled Event' } as ScheduledEvent;
      expect(await handler(scheduled, context('SearchIndexer'))).toEqual({ reembedded: 0, folded: 0, left: 0 });
    } finally {
      dispose();
    }
  });
});

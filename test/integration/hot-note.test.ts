import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import { readHighlight } from '../../functions/adapters/dynamo/entities/highlight';
import { noteHighlightItems } from '../../functions/adapters/dynamo/highlight-items';
import { parseRateLimitPolicy } from '../../functions/core/contract/rate-limit';
import { makeHandler } from '../../functions/save-bookmark/handler';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb-local';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { newTestAccount, saveHandlerDeps } from '../support/save-deps';

/**
 * Issue 21: many highlights saved to one note at once. Before appends became one conditional write
 * each, 180 of 200 such saves ran out of retries (500, `Out of time for retry 6`).
 */

let table: Awaited<ReturnType<typeof createTestTable>>;
let dynamo: DynamoDbLocal;
/**
 * A DynamoDB Local of its own: the run's, a hundred test files into a full run, took over 90 s for
 * these 200 writes to one item (7 s when fresh), which tells of that process, not of the save.
 */
beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
  table = await createTestTable(dynamo.endpoint);
}, 60_000);
afterAll(async () => {
  table?.client.destroy();
  await dynamo?.stop();
});

const HOT = 200;

describe('a hot note', () => {
  it(`takes ${HOT} concurrent highlights: every one saved (a temporary 503 sent again), stored once, in the order they were appended`, async () => {
    const { token } = await newTestAccount(table);
    const handler = makeHandler(saveHandlerDeps(table, []));
    const url = 'https://example.com/hot-note';
    const save = async (body: Record<string, unknown>, idempotencyKey = randomUUID()) => {
      const response = await handler(
        proxyEvent({
          headers: {
            Authorization: `Bearer ${token}`,
            'Content-Type': 'application/json',
            'Idempotency-Key': idempotencyKey,
          },
          body: JSON.stringify({ url, ...body }),
        }),
        context('test', 110_000),
      );
      return { status: response.statusCode, headers: response.headers ?? {}, json: JSON.parse(response.body) };
    };
    /**
     * As the extension saves: a 503 (a temporary fault, which a DynamoDB Local starved late in a full
     * run can cause) is sent again, the same request under the same key, after its Retry-After. On a
     * quiet machine every first answer is 200; `npm run bench` holds that target (the "hot note" row).
     */
    let temporaryFaults = 0;
    const saveAsClient = async (body: Record<string, unknown>) => {
      const key = randomUUID();
      for (;;) {
        const answer = await save(body, key);
        if (answer.status !== 503) return answer;
        expect(answer.headers['Retry-After']).toBeDefined();
        temporaryFaults++;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    const first = await save({ description: 'A page many people quote.' });
    const quotes = Array.from({ length: HOT }, (_, i) => `quote number ${i}`);
    const answers = await Promise.all(quotes.map((selection) => saveAsClient({ selection })));

    expect(answers.map((answer) => answer.status)).toEqual(quotes.map(() => 200));
    expect(answers.every((answer) => answer.json.selection_appended === true)).toBe(true);
    if (temporaryFaults > 0) console.warn(`hot note: ${temporaryFaults} answers were 503 and were sent again`);
    const store = new DynamoBookmarkStore(table.doc, table.tableName);
    const note = (await store.getNote(first.json.note_id))!;
    const inBody = [...note.body.matchAll(/^> (quote number \d+)$/gm)].map((match) => match[1]);
    // Each once, and the body and the highlight records tell the same order.
    expect(inBody).toHaveLength(HOT);
    expect(new Set(inBody)).toEqual(new Set(quotes));
    const records = (await noteHighlightItems(table.doc, table.tableName, note.id)).map(readHighlight);
    expect(records).toHaveLength(HOT);
    expect(new Set(records.map((record) => record.quote))).toEqual(new Set(quotes));
    expect(note.version).toBe(HOT + 1);

    // Saves that arrive one after another stay in the order they arrived.
    for (const selection of ['later one', 'later two', 'later three']) await save({ selection });
    const after = (await store.getNote(note.id))!.body;
    expect(after.indexOf('> later one')).toBeLessThan(after.indexOf('> later two'));
    expect(after.indexOf('> later two')).toBeLessThan(after.indexOf('> later three'));
    expect(after.startsWith(note.body)).toBe(true);
  }, 120_000);

  it('takes 300 concurrent highlights without Idempotency-Key answered 503 while their appends went on: each sent again is stored once, and the records match the body', async () => {
    const { token } = await newTestAccount(table);
    // Every retry counts against the quota: a large one, so that only the deadline answers.
    const handler = makeHandler({
      ...saveHandlerDeps(table, []),
      rateLimitPolicy: parseRateLimitPolicy('100000;w=60'),
    });
    const url = 'https://example.com/hot-note-unkeyed';
    const save = async (body: Record<string, unknown>, remainingMs = 110_000) => {
      const response = await handler(
        proxyEvent({
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ url, ...body }),
        }),
        context('test', remainingMs),
      );
      return { status: response.statusCode, json: JSON.parse(response.body) };
    };
    const first = await save({ description: 'A page many people quote.' });
    const store = new DynamoBookmarkStore(table.doc, table.tableName);
    const quotes = Array.from({ length: 300 }, (_, i) => `unkeyed quote ${i}`);
    // An invocation out of time at once: middy answers 503 while the save goes on, as a Lambda does
    // for a save queued behind hundreds of others on one note.
    const cut = await Promise.all(quotes.map((selection) => save({ selection }, 30)));
    expect(cut.every((answer) => answer.status === 503)).toBe(true);
    // Until the saves that went on have finished.
    let length = -1;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const now = (await store.getNote(first.json.note_id))!.body.length;
      if (now === length) break;
      length = now;
    }
    const applied = [...(await store.getNote(first.json.note_id))!.body.matchAll(/^> (unkeyed quote \d+)$/gm)];
    console.warn(`hot note without keys: ${applied.length} of 300 saves answered 503 were applied`);

    // Each client sends its save again after the 503, as the contract's Retry-After invites.
    const answers = await Promise.all(quotes.map((selection) => save({ selection })));
    expect(answers.map((answer) => answer.status)).toEqual(quotes.map(() => 200));
    const note = (await store.getNote(first.json.note_id))!;
    const inBody = [...note.body.matchAll(/^> (unkeyed quote \d+)$/gm)].map((match) => match[1]);
    expect(inBody.length - new Set(inBody).size).toBe(0);
    expect(new Set(inBody)).toEqual(new Set(quotes));
    const records = (await noteHighlightItems(table.doc, table.tableName, note.id)).map(readHighlight);
    expect(records.map((record) => record.quote).sort()).toEqual([...inBody].sort());
  }, 300_000);
});

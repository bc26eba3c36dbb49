import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import { makeHandler } from '../../functions/save-bookmark/handler';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { fillNoteToTheBrink } from '../support/full-note';
import { newTestAccount, saveHandlerDeps } from '../support/save-deps';

/**
 * Issue 31: a note's item outgrew DynamoDB's 400 KB before its body reached its 300 KB. Measured:
 * after 1,454 highlights of about 160 bytes the next save failed with ValidationException, a 500,
 * and so did every later highlight of that page. The contract's answer is the 422 `note_too_large`.
 */

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(() => table?.client.destroy());

const SELECTION =
  'A highlight of about a hundred and sixty bytes, as people make them when they read closely, word for word. '.padEnd(
    160,
    'x',
  );

describe("a note near DynamoDB's item limit", () => {
  it('answers a highlight that would pass the item limit with 422 note_too_large, not 500, and keeps the note readable', async () => {
    const { token } = await newTestAccount(table);
    const handler = makeHandler(saveHandlerDeps(table, []));
    const url = `https://example.com/${randomUUID()}`;
    const save = async (selection: string) => {
      const response = await handler(
        proxyEvent({
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ url, selection }),
        }),
        context(),
      );
      return { status: response.statusCode, json: JSON.parse(response.body) };
    };
    const first = await save(SELECTION);
    expect(first.status).toBe(200);
    const noteId = first.json.note_id as string;

    // Filled as 1,454 saves of such highlights filled it.
    const appended = await fillNoteToTheBrink(table, noteId, `> ${SELECTION}`);
    // Its body is still under its own 300 KB, so only the item's size can refuse the next highlight.
    expect(appended).toBeGreaterThan(1000);

    const next = await save(`${SELECTION} the next one`);
    expect(next.status).toBe(422);
    expect(next.json.detail[0]).toMatchObject({ loc: ['body', 'selection'], type: 'note_too_large' });
    const again = await save(`${SELECTION} and another`);
    expect(again.status).toBe(422);

    const { Item } = await table.doc.send(new GetCommand({ TableName: table.tableName, Key: keys.note(noteId) }));
    expect(Item?.appended).toHaveLength(appended);
    expect(Item?.bodyBytes).toBeLessThan(300 * 1024);
  });
});

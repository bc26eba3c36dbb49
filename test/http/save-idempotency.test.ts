import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import { newAccessToken } from '../../functions/core/workspace/accounts';
import { json, startTestStack, type TestStack } from '../support/local-stack';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t.stop());

const KEY_LOC = ['header', 'idempotency-key'];

/** Status, body text and remaining quota of an answer. */
async function answer(response: Response) {
  return {
    status: response.status,
    body: await response.text(),
    remaining: Number(response.headers.get('RateLimit-Remaining')),
  };
}

describe('a repeated save with the same Idempotency-Key', () => {
  it('answers the first status and body again and does nothing, with current RateLimit headers', async () => {
    const { token } = await t.createUser();
    const body = { url: 'https://example.com/idempotent', selection: 'only once', comment: '#once' };
    const first = await answer(await t.save(token, body, { 'Idempotency-Key': 'save-1' }));
    expect(first.status).toBe(200);
    const { note_id } = JSON.parse(first.body);
    const noteBefore = await t.bookmarks.getNote(note_id);
    const queued = t.stack.queues.enrichment.depth;

    const again = await answer(await t.save(token, body, { 'Idempotency-Key': 'save-1' }));
    expect(again.status).toBe(200);
    expect(again.body).toBe(first.body);
    expect(again.remaining).toBe(first.remaining - 1);
    expect(await t.bookmarks.getNote(note_id)).toEqual(noteBefore);
    expect(t.stack.queues.enrichment.depth).toBe(queued);
  });

  it('matches the body by its content, not its bytes, and the key bare or quoted', async () => {
    const { token } = await t.createUser();
    const first = await answer(
      await t.save(token, '{"url":"https://example.com/shape","selection":"s"}', { 'Idempotency-Key': 'shape' }),
    );
    const reordered = await answer(
      await t.save(token, '{ "selection": "s",\n  "url": "https://example.com/shape", "append": false }', {
        'Idempotency-Key': '"shape"',
      }),
    );
    expect(reordered.body).toBe(first.body);
  });

  it('answers 422 idempotency_key_reused for the same key with another body, and changes nothing', async () => {
    const { token } = await t.createUser();
    const first = await json(
      await t.save(token, { url: 'https://example.com/reused', selection: 'a' }, { 'Idempotency-Key': 'reused' }),
    );
    const response = await t.save(
      token,
      { url: 'https://example.com/reused', selection: 'b' },
      { 'Idempotency-Key': 'reused' },
    );
    expect(response.status).toBe(422);
    expect(response.headers.get('RateLimit-Remaining')).not.toBeNull();
    expect(await json(response)).toEqual({
      detail: [{ loc: KEY_LOC, msg: expect.any(String), type: 'idempotency_key_reused' }],
    });
    expect((await t.bookmarks.getNote(first.note_id))?.body).not.toContain('> b');
  });

  it('keeps keys per token: another token of the same user with the same key saves anew', async () => {
    const { token, user } = await t.createUser();
    const second = newAccessToken({ id: randomUUID(), userId: user.id, now: new Date() });
    await t.accounts.createToken(second.record, second.hash);
    const body = { url: 'https://example.com/per-token', selection: 'per token', append: true };
    const first = await json(await t.save(token, body, { 'Idempotency-Key': 'shared' }));
    const other = await json(await t.save(second.secret, body, { 'Idempotency-Key': 'shared' }));
    expect(other).toMatchObject({ note_id: first.note_id, is_new_bookmark: false, selection_appended: true });
    expect((await t.bookmarks.getNote(first.note_id))?.body.match(/> per token/g)).toHaveLength(2);
  });

  it('does not replay an expired record that DynamoDB has not deleted yet', async () => {
    const { token, tokenId } = await t.createUser();
    const body = { url: 'https://example.com/expired', selection: 'again', append: true };
    const first = await json(await t.save(token, body, { 'Idempotency-Key': 'expired' }));
    await t.table.doc.send(
      new UpdateCommand({
        TableName: t.table.tableName,
        Key: keys.idempotency(tokenId, 'expired'),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': 1 },
      }),
    );
    const after = await json(await t.save(token, body, { 'Idempotency-Key': 'expired' }));
    expect(after).toMatchObject({ is_new_bookmark: false, selection_appended: true });
    expect((await t.bookmarks.getNote(first.note_id))?.body.match(/> again/g)).toHaveLength(2);
  });

  it('gives two identical requests sent at once one save: the other is its replay, or a 409 if it came while the first ran', async () => {
    const { token } = await t.createUser();
    const body = { url: 'https://example.com/at-once', selection: 'at once' };
    const responses = await Promise.all(
      [1, 2].map(() => t.save(token, body, { 'Idempotency-Key': 'at-once' }).then(answer)),
    );
    const saved = responses.find((response) => response.status === 200)!;
    const other = responses.find((response) => response !== saved)!;
    if (other.status === 409) expect(JSON.parse(other.body).detail.code).toBe('idempotency_in_flight');
    else expect(other.body).toBe(saved.body);
    const { note_id } = JSON.parse(saved.body);
    expect((await t.bookmarks.getNote(note_id))?.body.match(/> at once/g)).toHaveLength(1);
  });

  it('answers 409 with Retry-After while the request holding the key is still being processed', async () => {
    const { token, tokenId } = await t.createUser();
    const body = { url: 'https://example.com/still-running', selection: 'running' };
    await t.save(token, body, { 'Idempotency-Key': 'running' });
    // The stored answer made back into a live claim: what a repeat finds while the first still runs.
    await t.table.doc.send(
      new UpdateCommand({
        TableName: t.table.tableName,
        Key: keys.idempotency(tokenId, 'running'),
        UpdateExpression: 'REMOVE outcome SET leaseUntil = :later',
        ExpressionAttributeValues: { ':later': Math.floor(Date.now() / 1000) + 60 },
      }),
    );
    const response = await t.save(token, body, { 'Idempotency-Key': 'running' });
    expect(response.status).toBe(409);
    expect(response.headers.get('Retry-After')).toBe('1');
    expect(response.headers.get('RateLimit-Remaining')).not.toBeNull();
    expect(await json(response)).toEqual({
      detail: {
        code: 'idempotency_in_flight',
        message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
        retry_after: 1,
      },
    });
  });
});

describe('a malformed Idempotency-Key', () => {
  it.each([
    ['empty', '', 'string_too_short'],
    ['too long', 'k'.repeat(256), 'string_too_long'],
    ['an unterminated quoted string', '"abc', 'string_pattern_mismatch'],
  ])('answers 422 HTTPValidationError when it is %s, and saves nothing', async (_, key, type) => {
    const { token, user } = await t.createUser();
    const response = await t.save(token, { url: 'https://example.com/bad-key' }, { 'Idempotency-Key': key });
    expect(response.status).toBe(422);
    expect(await json(response)).toEqual({
      detail: [expect.objectContaining({ loc: KEY_LOC, type, msg: expect.any(String) })],
    });
    expect((await t.accounts.getUser(user.id))?.noteCount).toBe(0);
  });

  it('is reported together with the body’s own problems', async () => {
    const { token } = await t.createUser();
    const { detail } = await json(await t.save(token, { url: 'ftp://example.com' }, { 'Idempotency-Key': '"' }));
    expect(detail.map((issue: { loc: unknown[] }) => issue.loc)).toEqual([['body', 'url'], KEY_LOC]);
  });

  it('is answered 401 first when the token is missing', async () => {
    expect((await t.save(null, { url: 'https://example.com' }, { 'Idempotency-Key': '' })).status).toBe(401);
  });
});

describe('CORS', () => {
  it('lets a browser extension send Idempotency-Key', async () => {
    const preflight = await fetch(`${t.stack.baseUrl}/api/v1/bookmarks/save`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'chrome-extension://abc',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key',
      },
    });
    expect(preflight.headers.get('Access-Control-Allow-Headers')).toMatch(/Idempotency-Key/);
  });
});

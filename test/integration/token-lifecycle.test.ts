import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import { expiryAfter, expiryAfterRotation } from '../../functions/core/token/lifecycle';
import { newAccessToken, newUser } from '../../functions/core/workspace/accounts';
import { makeHandler, type SaveBookmarkDeps } from '../../functions/save-bookmark/handler';
import { createTestTable } from '../support/dynamo';
import { context, proxyEvent } from '../support/factories';
import { saveHandlerDeps } from '../support/save-deps';

/** Token expiry, rotation and "last used", through the save handler against DynamoDB Local. */

let table: Awaited<ReturnType<typeof createTestTable>>;
let accounts: DynamoAccountStore;
let userId: string;
const HOUR = 3_600_000;
const start = Date.parse('2026-06-01T12:00:00Z');

beforeAll(async () => {
  table = await createTestTable();
  accounts = new DynamoAccountStore(table.doc, table.tableName);
  userId = randomUUID();
  await accounts.createUser(newUser({ id: userId, name: 'Tokens', now: new Date(start) }));
});
afterAll(() => table.client.destroy());

async function mint(options: { expiresInMs?: number; label?: string } = {}) {
  const minted = newAccessToken({
    id: randomUUID(),
    userId,
    label: options.label,
    expires: expiryAfter(new Date(start), options.expiresInMs),
    now: new Date(start),
  });
  await accounts.createToken(minted.record, minted.hash);
  return minted;
}

/** A save at `at` (the handler's clock) with `secret`, and the answer's status. */
async function saveAt(
  secret: string,
  at: number,
  overrides: Partial<SaveBookmarkDeps> = {},
  userAgent = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
) {
  const handler = makeHandler(saveHandlerDeps(table, [], { now: () => new Date(at), ...overrides }));
  const response = await handler(
    proxyEvent({
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}`, 'User-Agent': userAgent },
      body: JSON.stringify({ url: `https://example.com/${randomUUID()}`, description: 'd' }),
    }),
    context(),
  );
  return response.statusCode;
}

describe('token lifecycle', () => {
  it('refuses an expired token with 401, like a revoked one', async () => {
    const { secret } = await mint({ expiresInMs: 90 * 24 * HOUR });
    expect(await saveAt(secret, start + 89 * 24 * HOUR)).toBe(200);
    expect(await saveAt(secret, start + 90 * 24 * HOUR)).toBe(401);
  });

  it('rotates: the old token works through the grace period, then is refused; the new one keeps the label', async () => {
    const old = await mint({ label: 'laptop' });
    const rotatedAt = new Date(start + HOUR);
    const replacement = newAccessToken({ id: randomUUID(), userId, label: old.record.label, now: rotatedAt });
    expect(
      await accounts.rotateToken(
        { tokenHash: old.hash, expires: expiryAfterRotation(old.record, rotatedAt, 24 * HOUR) },
        replacement.record,
        replacement.hash,
      ),
    ).toBe(true);
    expect(await saveAt(old.secret, start + 24 * HOUR)).toBe(200);
    expect(await saveAt(old.secret, start + 25 * HOUR)).toBe(401);
    expect(await saveAt(replacement.secret, start + 25 * HOUR)).toBe(200);
    const listed = await accounts.listTokens(userId);
    expect(listed.find((t) => t.id === replacement.record.id)).toMatchObject({ label: 'laptop', expires: null });
    expect(listed.find((t) => t.id === old.record.id)).toMatchObject({
      label: 'laptop',
      expires: expect.stringMatching(/^2026-06-02T13:00:00/),
    });

    await accounts.revokeToken(replacement.record.id);
    const again = newAccessToken({ id: randomUUID(), userId, now: rotatedAt });
    expect(
      await accounts.rotateToken(
        { tokenHash: replacement.hash, expires: expiryAfterRotation(replacement.record, rotatedAt, HOUR) },
        again.record,
        again.hash,
      ),
    ).toBe(false);
  });

  it('records the last use at most once an hour, with the client family', async () => {
    const { record, secret } = await mint();
    const lastUse = async () => (await accounts.listTokens(userId)).find((t) => t.id === record.id)!;
    expect(await lastUse()).toMatchObject({ lastUsed: null, lastUsedAgent: null });
    await saveAt(secret, start + HOUR);
    expect(await lastUse()).toMatchObject({
      lastUsed: expect.stringMatching(/^2026-06-01T13:00:00/),
      lastUsedAgent: 'Firefox',
    });
    await saveAt(secret, start + HOUR + 30 * 60_000, {}, 'curl/8.5.0');
    expect((await lastUse()).lastUsed).toMatch(/^2026-06-01T13:00:00/);
    await saveAt(secret, start + 2 * HOUR, {}, 'curl/8.5.0');
    expect(await lastUse()).toMatchObject({
      lastUsed: expect.stringMatching(/^2026-06-01T14:00:00/),
      lastUsedAgent: 'curl',
    });
  });

  it('records the use alongside the save, not before it, and a failed record never fails the save', async () => {
    const { secret } = await mint();
    const store = saveHandlerDeps(table, []).store;
    let saveStarted!: () => void;
    const started = new Promise<void>((resolve) => (saveStarted = resolve));
    const watched = Object.assign(Object.create(store) as typeof store, {
      createBookmark: (...args: Parameters<typeof store.createBookmark>) => {
        saveStarted();
        return store.createBookmark(...args);
      },
    });
    // Were the use recorded before the save, this record (held until the save starts) would never finish.
    const heldRecord = Object.assign(Object.create(accounts) as DynamoAccountStore, { recordTokenUse: () => started });
    expect(await saveAt(secret, start, { store: watched, accounts: heldRecord })).toBe(200);

    const failing = Object.assign(Object.create(accounts) as DynamoAccountStore, {
      recordTokenUse: () => Promise.reject(new Error('throttled')),
    });
    expect(await saveAt(secret, start + 5 * HOUR, { accounts: failing })).toBe(200);
  });
});

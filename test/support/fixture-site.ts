import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { expect, vi } from 'vitest';
import { keys } from '../../functions/adapters/dynamo/keys';
import type { Environment } from '../../functions/platform/env';
import { json, startTestStack, type TestStack } from './local-stack';
import { type Owner, signedInUser } from './owner';

/**
 * A fixture web site on a loopback port (`answer` serves its pages) and a local stack whose page
 * workers run and may fetch from it (`env` and `options` add to that, as startTestStack takes them),
 * with two signed-in users. `origin` is the site's address; `stop` stops the stack and the site.
 */
export async function startStackWithSite(
  answer: RequestListener,
  env: Environment = {},
  options: Parameters<typeof startTestStack>[1] = {},
) {
  const site = createServer(answer);
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const { port } = site.address() as AddressInfo;
  let t: TestStack | undefined;
  const stop = async () => {
    await t?.stop();
    site.close();
  };
  try {
    t = await startTestStack({ GLEANER_FETCH_ALLOW: `127.0.0.1:${port}`, ...env }, { startWorkers: true, ...options });
    const [alice, bob] = await Promise.all([signedInUser(t), signedInUser(t)]);
    return { t, alice, bob, origin: `http://127.0.0.1:${port}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Saves a page for `owner` and waits until the page worker has been at it (kept it or failed): the save's answer. */
export async function savedAndFetched(t: TestStack, owner: Owner, body: Record<string, unknown>) {
  const saved = await json(await t.save(owner.token, body));
  await vi.waitFor(
    async () => {
      const { Item } = await t.table.doc.send(
        new GetCommand({ TableName: t.table.tableName, Key: keys.bookmark(saved.bookmark.id), ConsistentRead: true }),
      );
      expect(Item?.article?.status).toBeDefined();
    },
    { timeout: 30_000, interval: 100 },
  );
  return saved;
}

import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../functions/adapters/dynamo/bookmark-store';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { newAccessToken, newUser } from '../functions/core/workspace/accounts';
import { routeUrl } from '../functions/platform/routes';
import { type DynamoDbLocal, findFreePort, startDynamoDbLocal } from '../local/dynamodb-local';
import { startLocalStack } from '../local/stack';

/**
 * `npm run chaos` (issue 21): sustained saves through the local stack while DynamoDB Local (data on
 * disk, as `npm start` runs it) is killed with SIGKILL at a random moment and started again on the
 * same port and folder, CHAOS_ROUNDS times (20). Afterwards every save answered 200 is looked up:
 * the figure that matters is how many were acknowledged but not stored (the goal is 0). Also counts
 * what clients saw meanwhile (503s with Retry-After, never a 404 or a 500). Exits 1 when a save was lost.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const ROUNDS = Number(process.env.CHAOS_ROUNDS ?? 20);
const CLIENTS = 4;
const TABLE = 'gleaner-chaos';
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Acknowledged {
  readonly round: number;
  readonly noteId: string;
  readonly selection: string;
  /** Milliseconds between the kill and the 200 (negative: before the kill). */
  readonly afterKillMs: number;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gleaner-chaos-'));
  const port = await findFreePort();
  let dynamo: DynamoDbLocal = await startDynamoDbLocal({ dataDir, port });
  const stack = await startLocalStack({
    dynamoEndpoint: dynamo.endpoint,
    tableName: TABLE,
    env: { LOG_LEVEL: 'SILENT', SAVE_RATE_LIMIT: '100000;w=60' },
    startWorkers: false,
  });
  const statuses = new Map<string, number>();
  const acknowledged: Acknowledged[] = [];
  try {
    const { doc, client } = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
    const accounts = new DynamoAccountStore(doc, TABLE);
    const now = new Date();
    const user = newUser({ id: randomUUID(), name: 'Chaos', noteCap: 1_000_000, now });
    await accounts.createUser(user);
    const token = newAccessToken({ id: randomUUID(), userId: user.id, now });
    await accounts.createToken(token.record, token.hash);
    client.destroy();

    const saveUrl = routeUrl(stack.baseUrl, 'SaveBookmark', {});
    for (let round = 1; round <= ROUNDS; round++) {
      let running = true;
      let killedAt = Number.POSITIVE_INFINITY;
      const client = async (id: number) => {
        for (let i = 0; running; i++) {
          // New pages and appends to a few hot ones, both kinds of write.
          const url = i % 2 ? `https://example.com/r${round}/c${id}/${i}` : `https://example.com/hot/${i % 3}`;
          const selection = `round ${round} client ${id} save ${i}`;
          let status: string;
          try {
            const response = await fetch(saveUrl, {
              method: 'POST',
              headers: {
                Authorization: `Bearer ${token.secret}`,
                'Content-Type': 'application/json',
                'Idempotency-Key': randomUUID(),
              },
              body: JSON.stringify({ url, selection, append: true }),
            });
            status = String(response.status);
            const body = (await response.json()) as { note_id?: string };
            if (response.status === 200) {
              acknowledged.push({ round, noteId: body.note_id!, selection, afterKillMs: Date.now() - killedAt });
            } else if (response.status === 503 && !response.headers.get('Retry-After'))
              status = '503 without Retry-After';
          } catch (error) {
            status = `no answer (${(error as Error).cause ?? error})`;
          }
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, id) => client(id));
      await delay(300 + Math.random() * 1200);
      killedAt = Date.now();
      process.kill(dynamo.pid, 'SIGKILL');
      await delay(200);
      dynamo = await startDynamoDbLocal({ dataDir, port });
      await delay(500);
      running = false;
      await Promise.all(clients);
      process.stdout.write(`round ${round}/${ROUNDS}: ${acknowledged.length} saves acknowledged so far\n`);
    }

    const check = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
    const store = new DynamoBookmarkStore(check.doc, TABLE);
    const lost: Acknowledged[] = [];
    for (const save of acknowledged) {
      const note = await store.getNote(save.noteId);
      if (!note?.body.includes(`> ${save.selection}`)) lost.push(save);
    }
    check.client.destroy();
    console.log(`\nKilled DynamoDB Local ${ROUNDS} times during sustained saves (${CLIENTS} clients).`);
    console.log(`Answers: ${[...statuses].map(([status, n]) => `${status} × ${n}`).join(', ')}`);
    console.log(`Acknowledged (200): ${acknowledged.length}; acknowledged but not stored: ${lost.length}`);
    for (const save of lost) {
      console.log(`  lost: round ${save.round}, 200 ${save.afterKillMs} ms after the kill: ${save.selection}`);
    }
    process.exitCode = lost.length ? 1 : 0;
  } finally {
    await stack.stop();
    await dynamo.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

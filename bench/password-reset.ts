import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { DynamoIdentityStore } from '../functions/adapters/dynamo/identity-store';
import { newUser } from '../functions/core/workspace/accounts';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { startLocalStack } from '../local/stack';

/**
 * Issue 30's reset timing: `POST /forgot-password` through the local stack for addresses with an
 * account and without, interleaved, compared with a Mann–Whitney U test. The row passes while |z| < 3,
 * that is while the timing does not tell the two apart. Also runnable alone: `npx tsx bench/password-reset.ts`.
 */

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

type AddRow = (name: string, value: string, target?: { met: boolean; text: string }) => void;

const REQUESTS = 100;
const Z_LIMIT = 3;

/** Mann–Whitney U of `a` against `b` and its z (normal approximation, ties corrected). */
function mannWhitney(a: readonly number[], b: readonly number[]): { u: number; z: number } {
  const all = [...a.map((value) => ({ value, first: true })), ...b.map((value) => ({ value, first: false }))].sort(
    (x, y) => x.value - y.value,
  );
  let rankSumA = 0;
  let tieTerm = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j < all.length && all[j]!.value === all[i]!.value) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (all[k]!.first) rankSumA += rank;
    tieTerm += (j - i) ** 3 - (j - i);
    i = j;
  }
  const [n1, n2] = [a.length, b.length];
  const n = n1 + n2;
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  return { u, z: sigma === 0 ? 0 : (u - (n1 * n2) / 2) / sigma };
}

const median = (values: readonly number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

export async function passwordResetBench(row: AddRow): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  const tableName = `bench-${randomUUID()}`;
  const stack = await startLocalStack({
    dynamoEndpoint: dynamo.endpoint,
    tableName,
    startWorkers: false,
    env: { LOG_LEVEL: 'SILENT', SIGNIN_ACCOUNT_RATE_LIMIT: '100000;w=60', SIGNIN_ADDRESS_RATE_LIMIT: '100000;w=60' },
  });
  const log = console.log;
  console.log = () => undefined; // the local mailer prints every link
  try {
    const { doc } = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
    const identities = new DynamoIdentityStore(doc, tableName);
    const known: string[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const now = new Date();
      const user = newUser({ id: randomUUID(), name: `reset${i}`, now });
      const email = `reset-${i}-${randomUUID()}@example.com`;
      await identities.createUserWithLogin(user, {
        email,
        userId: user.id,
        passwordHash: 'not used',
        verified: true,
        created: now.toISOString(),
      });
      known.push(email);
    }
    const ask = async (email: string) => {
      const started = performance.now();
      const response = await fetch(`${stack.webBaseUrl}/forgot-password`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email }).toString(),
      });
      await response.text();
      if (response.status !== 303) throw new Error(`forgot-password answered ${response.status}`);
      return performance.now() - started;
    };
    for (let i = 0; i < 10; i++) await ask(i % 2 ? known[i]! : `warm-${i}@example.com`);
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    // Interleaved, so a change in the machine's load falls on both alike.
    for (let i = 0; i < REQUESTS; i++) {
      knownTimes.push(await ask(known[i]!));
      unknownTimes.push(await ask(`nobody-${i}-${randomUUID()}@example.com`));
    }
    const { z } = mannWhitney(knownTimes, unknownTimes);
    row(
      `password reset, ${REQUESTS} known + ${REQUESTS} unknown addresses (median)`,
      `${median(knownTimes).toFixed(1)} ms known, ${median(unknownTimes).toFixed(1)} ms unknown, Mann–Whitney z = ${z.toFixed(2)}`,
      {
        met: Math.abs(z) < Z_LIMIT,
        text: `|z| < ${Z_LIMIT}: the timing does not tell whether an address has an account`,
      },
    );
  } finally {
    console.log = log;
    await stack.stop();
    await dynamo.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await passwordResetBench((name, value, target) =>
    process.stdout.write(`${name}: ${value}${target ? ` (${target.met ? 'met' : 'MISSED'}: ${target.text})` : ''}\n`),
  );
}

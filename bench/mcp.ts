import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoAccountStore } from '../functions/adapters/dynamo/account-store';
import { createDynamoClients } from '../functions/adapters/dynamo/client';
import { DynamoOAuthAdapter } from '../functions/adapters/dynamo/oauth-adapter';
import { LanceSearchIndex } from '../functions/adapters/search/lance-index';
import { type ResourceName, resourceIdentifier } from '../functions/core/identity/resources';
import { searchNotes } from '../functions/core/search/search';
import { newAccessToken, newUser } from '../functions/core/workspace/accounts';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { startLocalStack } from '../local/stack';

/**
 * `tools/call search_notes` through the local stack (token lookup, quotas, the SDK's transport, the
 * search), p50 and p95, beside the same searches over REST (`GET /api/v2/me/search`, the same stack
 * and index, an OAuth token for that API) and through `searchNotes` in this process, the floor both
 * add to. Also runnable alone: `npx tsx bench/mcp.ts`.
 */

// No CloudWatch here: the indexer's embedded-metric lines would bury the figures.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

type AddRow = (name: string, value: string, target?: { met: boolean; text: string }) => void;

const NOTES = Number(process.env.BENCH_MCP_NOTES ?? 300);
const QUERIES = 100;
const WORDS = ['glacier', 'moraine', 'river', 'delta', 'basalt', 'granite', 'tundra', 'fjord', 'estuary', 'dune'];

const quantile = (values: readonly number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

export async function mcpBench(row: AddRow): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'gleaner-bench-mcp-'));
  const dynamo = await startDynamoDbLocal();
  const tableName = `bench-${randomUUID()}`;
  const uri = join(folder, 'index');
  const stack = await startLocalStack({
    dynamoEndpoint: dynamo.endpoint,
    tableName,
    startWorkers: false,
    env: {
      LOG_LEVEL: 'SILENT',
      SAVE_RATE_LIMIT: '100000;w=60',
      OWNER_RATE_LIMIT: '100000;w=60',
      MCP_CLIENT_RATE_LIMIT: '100000;w=60',
    },
    searchIndexUri: uri,
  });
  const { client, doc } = createDynamoClients({ endpoint: dynamo.endpoint, region: 'local' });
  const index = await LanceSearchIndex.open({ uri });
  try {
    const now = new Date();
    const user = newUser({ id: randomUUID(), name: 'Bench', now });
    const accounts = new DynamoAccountStore(doc, tableName);
    await accounts.createUser(user);
    const pat = newAccessToken({ id: randomUUID(), userId: user.id, now });
    await accounts.createToken(pat.record, pat.hash);
    for (let i = 0; i < NOTES; i++) {
      const words = [WORDS[i % WORDS.length], WORDS[(i * 7) % WORDS.length], `note${i}`].join(' ');
      const saved = await fetch(`${stack.baseUrl}/api/v1/bookmarks/save`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${pat.secret}` },
        body: JSON.stringify({
          url: `https://bench.example/${i}`,
          title: `About ${words}`,
          selection: `The ${words}.`,
        }),
      });
      if (!saved.ok) throw new Error(`save answered ${saved.status}`);
    }
    // Indexed by the stream poller; wait until every note is searchable.
    for (const began = Date.now(); ; ) {
      if ((await index.coverage(user.id, '')).notes >= NOTES) break;
      if (Date.now() - began > 60_000) throw new Error('the notes were not indexed within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    // Compacted as a settled index is (each indexed batch is a fragment of its own until then).
    await index.optimize();

    // Access tokens for the MCP resource and the per-user API, as the authorization server stores
    // them (the bench times the calls, not consent).
    const issueToken = async (resource: ResourceName) => {
      const token = randomBytes(32).toString('base64url');
      await new DynamoOAuthAdapter('AccessToken', doc, tableName).upsert(
        token,
        {
          accountId: user.id,
          clientId: 'bench-client',
          aud: resourceIdentifier(stack.webBaseUrl, resource),
          scope: 'notes:read',
          exp: Math.floor(Date.now() / 1000) + 3600,
        } as never,
        3600,
      );
      return token;
    };
    const accessToken = await issueToken('mcp');
    const apiToken = await issueToken('ownerApi');
    const toolCall = async (query: string) => {
      const answer = await fetch(`${stack.webBaseUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          authorization: `Bearer ${accessToken}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'search_notes', arguments: { query, limit: 10 } },
        }),
      });
      const body = (await answer.json()) as { result?: { isError?: boolean; structuredContent?: { results: [] } } };
      if (!answer.ok || body.result?.isError || !body.result?.structuredContent?.results.length)
        throw new Error(`tools/call search_notes answered ${answer.status}: ${JSON.stringify(body).slice(0, 200)}`);
    };
    const rest = async (query: string) => {
      const answer = await fetch(
        `${stack.webBaseUrl}/api/v2/me/search?${new URLSearchParams({ q: query, limit: '10' })}`,
        {
          headers: { authorization: `Bearer ${apiToken}` },
        },
      );
      const body = (await answer.json()) as { results?: [] };
      if (!answer.ok || !body.results?.length)
        throw new Error(`GET /api/v2/me/search answered ${answer.status}: ${JSON.stringify(body).slice(0, 200)}`);
    };
    const direct = async (query: string) => {
      const result = await searchNotes({ index, embedder: null }, user.id, query, { limit: 10 });
      if (!result.ok || result.answer.results.length === 0) throw new Error(`searchNotes found nothing for ${query}`);
    };
    const queries = Array.from(
      { length: QUERIES },
      (_, i) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]}`,
    );
    const timed = async (run: (query: string) => Promise<void>) => {
      for (const query of queries.slice(0, 10)) await run(query); // warm: first loads, caches
      const times: number[] = [];
      for (const query of queries) {
        const began = performance.now();
        await run(query);
        times.push(performance.now() - began);
      }
      return times;
    };
    const viaMcp = await timed(toolCall);
    const viaRest = await timed(rest);
    const viaCore = await timed(direct);
    const p50 = quantile(viaMcp, 0.5);
    const restP50 = quantile(viaRest, 0.5);
    row(
      `MCP tools/call search_notes, local stack (${NOTES} notes, ${QUERIES} queries, p50 / p95)`,
      `${ms(p50)} / ${ms(quantile(viaMcp, 0.95))}`,
    );
    row(
      'same searches over REST, GET /api/v2/me/search (p50 / p95)',
      `${ms(restP50)} / ${ms(quantile(viaRest, 0.95))}; MCP adds ${ms(p50 - restP50)} at p50`,
    );
    row(
      'same searches through searchNotes in process (p50 / p95)',
      `${ms(quantile(viaCore, 0.5))} / ${ms(quantile(viaCore, 0.95))}`,
    );
  } finally {
    index.close();
    client.destroy();
    await stack.stop();
    await dynamo.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await mcpBench((name, value) => console.log(`${name}  ${value}`));
}

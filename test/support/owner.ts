import { randomBytes } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DynamoIdentityStore } from '../../functions/adapters/dynamo/identity-store';
import { DynamoOAuthAdapter } from '../../functions/adapters/dynamo/oauth-adapter';
import type { Scope } from '../../functions/core/identity/principal';
import { resourceIdentifier } from '../../functions/core/identity/resources';
import { newSession, sessionCookieName } from '../../functions/core/identity/session';
import { RETAG_LEASE_MS, type RetagJob } from '../../functions/core/owner/library';
import { isoTimestamp } from '../../functions/core/text/text';
import { CSRF_HEADER } from '../../functions/http/owner-auth';
import { contractFetch } from './contract';
import type { TestStack } from './local-stack';

/**
 * Callers of the owner's side in HTTP tests: a user signed in with a browser session (stored as the
 * sign-in stores it) and OAuth access tokens (stored as oidc-provider's adapter stores them), so the
 * real authentication of the per-user API runs on every request.
 */

export type Owner = Awaited<ReturnType<typeof signedInUser>>;

/** Saves a page with the owner's API token (titled `Page <url>` unless `extra` says otherwise); its note's id. */
export async function savedPage(
  t: TestStack,
  owner: Owner,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await t.save(owner.token, { url, title: `Page ${url}`, ...extra });
  if (response.status !== 200) throw new Error(`saving ${url} answered ${response.status}`);
  return ((await response.json()) as { note_id: string }).note_id;
}

export async function signedInUser(t: TestStack) {
  const created = await t.createUser();
  const identity = new DynamoIdentityStore(t.table.doc, t.table.tableName);
  const { session, cookieValue } = newSession(created.user.id, new Date());
  await identity.putSession(session);
  const cookie = `${sessionCookieName(false)}=${cookieValue}`;
  /** A request of the web app: its session cookie and, on a write, its CSRF token. */
  const api = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    contractFetch(`${t.stack.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        Cookie: cookie,
        ...(init.method && init.method !== 'GET' ? { [CSRF_HEADER]: session.csrfToken } : {}),
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  return { ...created, cookie, csrfToken: session.csrfToken, api };
}

/** An opaque OAuth access token of `userId` with these scopes, for the per-user API unless `audience` says otherwise. */
export async function oauthAccessToken(
  t: TestStack,
  userId: string,
  scopes: readonly Scope[],
  audience = resourceIdentifier(t.stack.webBaseUrl, 'ownerApi'),
): Promise<string> {
  const id = randomBytes(32).toString('base64url');
  // Tokens are issued under a grant, as oidc-provider issues them.
  const grantId = randomBytes(16).toString('base64url');
  await new DynamoOAuthAdapter('Grant', t.table.doc, t.table.tableName).upsert(
    grantId,
    { accountId: userId, clientId: 'test-client', kind: 'Grant' },
    3600,
  );
  await new DynamoOAuthAdapter('AccessToken', t.table.doc, t.table.tableName).upsert(
    id,
    {
      grantId,
      accountId: userId,
      aud: audience,
      scope: scopes.join(' '),
      clientId: 'test-client',
      exp: Math.floor(Date.now() / 1000) + 3600,
      kind: 'AccessToken',
    },
    3600,
  );
  return id;
}

/** Every item of the table (small test tables), for counting what a user owns. */
export async function tableItems(t: TestStack): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await t.table.doc.send(new ScanCommand({ TableName: t.table.tableName, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/** Items that name the user anywhere (a key, an attribute, a nested payload). */
export function itemsOf(items: readonly Record<string, unknown>[], userId: string): Record<string, unknown>[] {
  return items.filter((item) => JSON.stringify(item).includes(userId));
}

/** The MCP SDK's own client for `owner`, holding an access token with these scopes for the MCP endpoint. */
export async function mcpClientOf(t: TestStack, owner: Owner, scopes: readonly Scope[]): Promise<Client> {
  const mcpUrl = `${t.stack.webBaseUrl}/mcp`;
  const token = await oauthAccessToken(t, owner.user.id, scopes, mcpUrl);
  const client = new Client({ name: 'gleaner-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/**
 * Records a rename of `owner`'s tag as under way in a run of its own (its lease ahead, so the sweeper
 * leaves it alone), `notesChanged` notes moved so far; the job as stored.
 */
export async function renameUnderWay(t: TestStack, owner: Owner, from: string, to: string, notesChanged = 0) {
  const job: RetagJob = {
    userId: owner.user.id,
    from,
    to,
    mode: 'rename',
    started: isoTimestamp(new Date()),
    notesChanged,
    resumeAt: isoTimestamp(new Date(Date.now() + RETAG_LEASE_MS)),
  };
  await t.bookmarks.startRetagJob(job);
  return job;
}

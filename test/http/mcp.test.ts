import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_MAX_LENGTH } from '../../functions/core/search/query';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { type OAuthTestClient, oauthTestClient } from '../support/oauth-client';
import { oauthAccessToken, signedInUser } from '../support/owner';
import { createLoginUser, csrfTokenOf, signedIn, type WebClient } from '../support/web-client';

/**
 * The MCP server through the local stack, with access tokens from the real authorization server:
 * every tool and the note resources through the SDK's own client, then the attacks (another
 * resource's token, a personal access token, a revoked grant, another user's ids, a replayed save, a
 * foreign Origin, oversized and malformed arguments, a missing scope). The OAuth discovery with the
 * SDK's OAuth provider and the consent page in Chromium is test/browser/mcp.test.ts.
 */

const PASSWORD = 'a long enough password';
const ALL_SCOPES = 'notes:read notes:write feeds:read feeds:write review offline_access';

let t: TestStack;
let folder: string;
let oauth: OAuthTestClient;
let owner: { id: string; browser: WebClient; token: string };
let other: { id: string; browser: WebClient; token: string };
let mcpUrl: string;

async function mcpToken(browser: WebClient, scope = ALL_SCOPES, name = 'Assistant'): Promise<string> {
  const tokens = await oauth.codeFlow(browser, await oauth.register(name), {
    resource: `${oauth.issuer.origin}/mcp`,
    scope,
  });
  return tokens.access_token;
}

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'gleaner-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** One JSON-RPC request over plain HTTP, for what the SDK client would hide (statuses, headers). */
function rpc(token: string | null, method: string, params: unknown = {}, headers: Record<string, string> = {}) {
  return fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18',
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gleaner-mcp-'));
  // Keyword search (embeddings off): the searches here check whose notes are found, by their words.
  t = await startTestStack(
    { MCP_CLIENT_RATE_LIMIT: '500;w=3600', GLEANER_EMBEDDINGS: 'off' },
    { searchIndexUri: join(folder, 'index') },
  );
  mcpUrl = `${t.stack.webBaseUrl}/mcp`;
  oauth = await oauthTestClient(t);
  const make = async (email: string) => {
    const user = await createLoginUser(t, email, PASSWORD);
    const browser = await signedIn(t, email, PASSWORD);
    return { id: user.id, browser, token: await mcpToken(browser) };
  };
  owner = await make('owner@example.com');
  other = await make('other@example.com');
}, 120_000);

afterAll(async () => {
  await t?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('the MCP server', () => {
  it('lists every tool with a JSON Schema input, an output schema and annotations', async () => {
    const client = await connect(owner.token);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(
      [
        'add_highlight',
        'add_note_to_feed',
        'add_tags',
        'get_note',
        'list_feeds',
        'list_recent_notes',
        'list_tags',
        'remove_tags',
        'save_bookmark',
        'set_reading_state',
        'delete_note',
        'restore_note',
        'search_notes',
        'get_daily_review',
        'rate_highlight',
      ].sort(),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(
        tool.name.startsWith('list_') || /^(get|search)_/.test(tool.name),
      );
    }
    expect(byName.get('search_notes')!.inputSchema.required).toEqual(['query']);
    expect(byName.get('remove_tags')!.annotations?.destructiveHint).toBe(true);
    expect(byName.get('add_tags')!.annotations?.destructiveHint).toBe(false);
    expect(byName.get('delete_note')!.annotations?.destructiveHint).toBe(true);
    expect(byName.get('save_bookmark')!.description).toContain('notes:write');
    await client.close();
  });

  it('saves, finds, reads, tags, lists and publishes a note through the tools', async () => {
    const client = await connect(owner.token);
    const saved = await call(client, 'save_bookmark', {
      url: 'https://glacier.example/moraine',
      title: 'Moraines and glacial valleys',
      selection: 'Terminal moraines mark the furthest advance.',
      comment: 'Field trip #geology',
    });
    expect(saved.isError).toBeFalsy();
    const { note_id: noteId, is_new_bookmark } = saved.structuredContent as {
      note_id: string;
      is_new_bookmark: boolean;
    };
    expect(is_new_bookmark).toBe(true);
    expect(textOf(saved)).toContain('Saved a new bookmark');

    // Search reads the index the table's stream feeds.
    await expect
      .poll(async () => {
        const found = await call(client, 'search_notes', { query: 'moraines', limit: 5 });
        if (found.isError) throw new Error(textOf(found));
        return (found.structuredContent as { results: { note_id: string }[] }).results.map((hit) => hit.note_id);
      })
      .toEqual([noteId]);
    const found = await call(client, 'search_notes', { query: 'furthest advance' });
    expect(textOf(found)).toContain('Moraines and glacial valleys');
    expect(textOf(found)).toContain('**furthest**');

    const note = await call(client, 'get_note', { note_id: noteId });
    expect(note.structuredContent).toMatchObject({
      id: noteId,
      url: 'https://glacier.example/moraine',
      tags: ['geology'],
      highlights: [{ quote: 'Terminal moraines mark the furthest advance.' }],
    });
    expect(textOf(note)).toContain('# Moraines and glacial valleys');

    const tagged = await call(client, 'add_tags', { note_id: noteId, tags: ['ice', '#Glaciers'] });
    expect((tagged.structuredContent as { tags: string[] }).tags).toEqual(['geology', 'ice', 'glaciers']);
    const untagged = await call(client, 'remove_tags', { note_id: noteId, tags: ['ice'] });
    expect((untagged.structuredContent as { tags: string[] }).tags).toEqual(['geology', 'glaciers']);

    const recent = await call(client, 'list_recent_notes', { limit: 1 });
    expect((recent.structuredContent as { notes: { id: string }[] }).notes.map((entry) => entry.id)).toEqual([noteId]);
    const tags = await call(client, 'list_tags', {});
    expect((tags.structuredContent as { tags: unknown[] }).tags).toEqual([
      { name: 'geology', count: 1 },
      { name: 'glaciers', count: 1 },
    ]);

    const feed = await t.createFeed(owner.id, { title: 'Reading', tags: ['reading'], match: 'any', sharing: 'public' });
    const feeds = await call(client, 'list_feeds', {});
    expect((feeds.structuredContent as { feeds: { id: string }[] }).feeds.map((entry) => entry.id)).toEqual([feed.id]);
    const published = await call(client, 'add_note_to_feed', { note_id: noteId, feed_id: feed.id });
    expect(published.structuredContent).toMatchObject({
      tags_added: ['reading'],
      note_tags: ['geology', 'glaciers', 'reading'],
    });
    const again = await call(client, 'add_note_to_feed', { note_id: noteId, feed_id: feed.id });
    expect(textOf(again)).toContain('already');
    const page = await json(await fetch(`${t.stack.baseUrl}/api/v2/publisher/feeds/${feed.id}/public`));
    expect(JSON.stringify(page)).toContain('Moraines and glacial valleys');
    await client.close();
  });

  it("gives the day's review and rates its highlights, never another user's", async () => {
    const reviewer = await createLoginUser(t, 'reviewer@example.com', PASSWORD);
    const client = await connect(await mcpToken(await signedIn(t, 'reviewer@example.com', PASSWORD)));
    for (const index of [1, 2])
      await call(client, 'save_bookmark', {
        url: `https://review.example/${index}`,
        selection: `Remember this, part ${index}.`,
      });
    const review = await call(client, 'get_daily_review', {});
    expect(review.isError).toBeFalsy();
    const { items } = review.structuredContent as { items: { highlight_id: string; text: string; rated: boolean }[] };
    expect(items.map((item) => item.text).sort()).toEqual(['Remember this, part 1.', 'Remember this, part 2.']);
    expect(textOf(review)).toContain('Remember this, part 1.');

    const rated = await call(client, 'rate_highlight', { highlight_id: items[0]!.highlight_id, rating: 'good' });
    expect(rated.structuredContent).toMatchObject({ highlight_id: items[0]!.highlight_id, rating: 'good' });
    expect((rated.structuredContent as { next_due: string }).next_due > new Date().toISOString()).toBe(true);
    const after = await call(client, 'get_daily_review', {});
    expect(
      (after.structuredContent as { items: { rated: boolean }[] }).items.filter((item) => item.rated),
    ).toHaveLength(1);

    const intruder = await connect(owner.token);
    const stolen = await call(intruder, 'rate_highlight', { highlight_id: items[1]!.highlight_id, rating: 'discard' });
    expect(stolen.isError).toBe(true);
    expect(textOf(stolen)).toContain('No such highlight');
    const bad = await call(client, 'rate_highlight', { highlight_id: items[1]!.highlight_id, rating: 'great' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/rating/);
    const stillThere = await call(client, 'get_daily_review', {});
    expect((stillThere.structuredContent as { items: unknown[] }).items).toHaveLength(2);
    expect(reviewer.id).toBeTruthy();
    await client.close();
    await intruder.close();
  });

  it('lists notes as note:// resources a page at a time (50 a page), and reads one', async () => {
    const client = await connect(owner.token);
    const before = (await client.listResources()).resources.length;
    const saved: string[] = [];
    for (let batch = 0; batch < 6; batch++)
      for (const result of await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          call(client, 'save_bookmark', {
            url: `https://pages.example/${batch}/${index}`,
            title: `Page ${batch}.${index}`,
          }),
        ),
      ))
        saved.push((result.structuredContent as { note_id: string }).note_id);

    const first = await client.listResources();
    expect(first.resources).toHaveLength(50);
    expect(first.nextCursor).toBeTruthy();
    expect(first.resources[0]).toMatchObject({ uri: expect.stringMatching(/^note:\/\//), mimeType: 'text/markdown' });
    const second = await client.listResources({ cursor: first.nextCursor! });
    expect(second.nextCursor).toBeUndefined();
    const uris = [...first.resources, ...second.resources].map((resource) => resource.uri);
    expect(new Set(uris).size).toBe(before + saved.length);
    expect(uris).toEqual(expect.arrayContaining(saved.map((id) => `note://${id}`)));

    const read = await client.readResource({ uri: `note://${saved[0]}` });
    expect(read.contents[0]).toMatchObject({ uri: `note://${saved[0]}`, mimeType: 'text/markdown' });
    expect((read.contents[0] as { text: string }).text).toContain('# Page 0.0');
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual(['note://{id}']);
    await client.close();
  });
});

describe('attacks on the MCP server', () => {
  it('answers 401 with resource_metadata without a token, and serves that metadata (RFC 9728)', async () => {
    const answer = await rpc(null, 'tools/list');
    expect(answer.status).toBe(401);
    const metadataUrl = `${oauth.issuer.origin}/.well-known/oauth-protected-resource/mcp`;
    expect(answer.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    expect(answer.headers.get('ratelimit-policy')).toBeTruthy();
    const metadata = await json(await fetch(metadataUrl));
    expect(metadata).toMatchObject({
      resource: `${oauth.issuer.origin}/mcp`,
      authorization_servers: [oauth.issuer.origin],
      scopes_supported: expect.arrayContaining(['notes:read', 'notes:write', 'feeds:read', 'feeds:write', 'review']),
    });
  });

  it('answers GET /mcp 405 with Allow (no server-initiated streams)', async () => {
    const answer = await fetch(mcpUrl, {
      headers: { Authorization: `Bearer ${owner.token}`, Accept: 'text/event-stream' },
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
  });

  it('refuses a token for another resource both ways, and a personal access token', async () => {
    const apiToken = (await oauth.codeFlow(owner.browser, await oauth.register('API app'), { scope: 'notes:read' }))
      .access_token;
    const refused = await rpc(apiToken, 'tools/list');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await json(refused)).detail).toContain('another resource');
    const onApi = await fetch(`${t.stack.baseUrl}/api/v2/me`, { headers: { Authorization: `Bearer ${owner.token}` } });
    expect(onApi.status).toBe(401);

    const { token: pat } = await t.createUser();
    const withPat = await rpc(pat, 'tools/list');
    expect(withPat.status).toBe(401);
    expect((await json(withPat)).detail).toMatch(/Personal access tokens only save bookmarks/);
  });

  it('stops a revoked grant at the next call', async () => {
    const token = await mcpToken(owner.browser, 'notes:read', 'Revoked assistant');
    expect((await rpc(token, 'tools/call', { name: 'list_tags', arguments: {} })).status).toBe(200);
    const html = await (await owner.browser.request('/settings/apps')).text();
    const grant = /Revoked assistant[\s\S]*?name="grant" value="([^"]+)"/.exec(html)![1]!;
    expect((await owner.browser.post('/settings/apps/revoke', { csrf: csrfTokenOf(html), grant })).status).toBe(303);
    const after = await rpc(token, 'tools/call', { name: 'list_tags', arguments: {} });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('answers 403 insufficient_scope for a tool the token has no scope for', async () => {
    const readOnly = await mcpToken(owner.browser, 'notes:read', 'Read-only assistant');
    expect((await rpc(readOnly, 'tools/call', { name: 'get_note', arguments: { note_id: randomUUID() } })).status).toBe(
      200,
    );
    const refused = await rpc(readOnly, 'tools/call', {
      name: 'save_bookmark',
      arguments: { url: 'https://a.example/' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toMatch(/error="insufficient_scope", scope="notes:write"/);
    const feeds = await rpc(readOnly, 'tools/call', { name: 'list_feeds', arguments: {} });
    expect(feeds.status).toBe(403);
  });

  it("finds none of another user's notes or feeds, and changes none of them", async () => {
    const mine = await connect(owner.token);
    const theirs = await connect(other.token);
    const saved = await call(theirs, 'save_bookmark', {
      url: 'https://private.example/diary',
      title: 'Private diary',
      comment: '#secret',
    });
    const theirNote = (saved.structuredContent as { note_id: string }).note_id;
    const theirFeed = await t.createFeed(other.id, {
      title: 'Theirs',
      tags: ['secret'],
      match: 'any',
      sharing: 'private',
    });
    const myFeed = await t.createFeed(owner.id, { title: 'Mine', tags: ['mine'], match: 'any', sharing: 'public' });
    const myNote = (
      (await call(mine, 'save_bookmark', { url: 'https://mine.example/', title: 'Mine' })).structuredContent as {
        note_id: string;
      }
    ).note_id;

    for (const [name, args] of [
      ['get_note', { note_id: theirNote }],
      ['add_tags', { note_id: theirNote, tags: ['stolen'] }],
      ['remove_tags', { note_id: theirNote, tags: ['secret'] }],
      ['set_reading_state', { note_id: theirNote, archived: true, starred: true }],
      ['delete_note', { note_id: theirNote }],
      ['restore_note', { note_id: theirNote }],
      ['add_note_to_feed', { note_id: theirNote, feed_id: myFeed.id }],
      ['add_note_to_feed', { note_id: myNote, feed_id: theirFeed.id }],
    ] as const) {
      const result = await call(mine, name, args);
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toMatch(/No such (note|feed)/);
    }
    await expect(mine.readResource({ uri: `note://${theirNote}` })).rejects.toThrow(/No such note/);
    const theirsNow = await call(theirs, 'get_note', { note_id: theirNote });
    expect(theirsNow.structuredContent).toMatchObject({ tags: ['secret'], archived: false, starred: false });
    await call(theirs, 'set_reading_state', { note_id: theirNote, starred: true });
    for (const filter of [{ starred: true }, { archived: false }])
      expect(JSON.stringify((await call(mine, 'list_recent_notes', filter)).structuredContent)).not.toContain(
        theirNote,
      );
    const listed = await call(mine, 'list_recent_notes', { limit: 100 });
    expect(JSON.stringify(listed.structuredContent)).not.toContain(theirNote);
    await expect
      .poll(async () => textOf(await call(theirs, 'search_notes', { query: 'diary' })))
      .toContain('Private diary');
    expect(textOf(await call(mine, 'search_notes', { query: 'diary' }))).toContain('No notes found');
    await mine.close();
    await theirs.close();
  });

  it('deletes a note to the Trash with delete_note and brings it back with restore_note, for its owner only', async () => {
    const client = await connect(owner.token);
    const stranger = await connect(other.token);
    const noteId = (
      (await call(client, 'save_bookmark', { url: 'https://trash.example/mcp', title: 'Binned page' }))
        .structuredContent as { note_id: string }
    ).note_id;
    const deleted = await call(client, 'delete_note', { note_id: noteId });
    expect(deleted.isError).toBeFalsy();
    expect(textOf(deleted)).toContain('is in the Trash');
    expect(textOf(await call(client, 'get_note', { note_id: noteId }))).toMatch(/No such note/);
    expect((await call(client, 'delete_note', { note_id: noteId })).isError).toBe(true);
    const refused = await call(stranger, 'restore_note', { note_id: noteId });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/No such note/);
    const restored = await call(client, 'restore_note', { note_id: noteId });
    expect(restored.structuredContent).toMatchObject({ id: noteId, title: 'Binned page' });
    expect((await call(client, 'get_note', { note_id: noteId })).isError).toBeFalsy();
    await client.close();
    await stranger.close();
  });

  it('archives and stars a note with set_reading_state, and lists the inbox, archive and starred notes', async () => {
    const client = await connect(owner.token);
    const noteOf = async (url: string) =>
      ((await call(client, 'save_bookmark', { url, title: url })).structuredContent as { note_id: string }).note_id;
    const done = await noteOf('https://states.example/done');
    const keep = await noteOf('https://states.example/keep');
    const archived = await call(client, 'set_reading_state', { note_id: done, archived: true });
    expect(archived.isError).toBeFalsy();
    expect(archived.structuredContent).toMatchObject({ id: done, archived: true, starred: false });
    expect(textOf(archived)).toContain('is now archived');
    expect((await call(client, 'set_reading_state', { note_id: keep, starred: true })).structuredContent).toMatchObject(
      { archived: false, starred: true },
    );
    const ids = async (filter: Record<string, unknown>) =>
      (
        (await call(client, 'list_recent_notes', { limit: 100, ...filter })).structuredContent as {
          notes: { id: string }[];
        }
      ).notes.map((note) => note.id);
    expect(await ids({ archived: true })).toContain(done);
    expect(await ids({ archived: true })).not.toContain(keep);
    expect(await ids({ archived: false })).toContain(keep);
    expect(await ids({ archived: false })).not.toContain(done);
    expect(await ids({ starred: true })).toEqual([keep]);
    expect(textOf(await call(client, 'get_note', { note_id: done }))).toContain('State: archived');
    const nothing = await call(client, 'set_reading_state', { note_id: done });
    expect(nothing.isError).toBe(true);
    expect(textOf(nothing)).toContain('nothing to change');
    await client.close();
  });

  it('saves once for a save_bookmark replayed with the same idempotency key', async () => {
    const client = await connect(owner.token);
    const args = {
      url: 'https://replay.example/once',
      title: 'Once',
      selection: 'Only once.',
      idempotency_key: randomUUID(),
    };
    const [first, second] = await Promise.all([
      call(client, 'save_bookmark', args),
      call(client, 'save_bookmark', args),
    ]);
    const third = await call(client, 'save_bookmark', args);
    const answers = [first, second, third].filter((result) => !result.isError);
    expect(answers.length).toBeGreaterThanOrEqual(2);
    expect(new Set(answers.map((result) => (result.structuredContent as { note_id: string }).note_id)).size).toBe(1);
    expect(textOf(third)).toContain('a repeat of an earlier call');
    const noteId = (third.structuredContent as { note_id: string }).note_id;
    const note = await call(client, 'get_note', { note_id: noteId });
    expect((note.structuredContent as { highlights: unknown[] }).highlights).toHaveLength(1);
    const notes = await call(client, 'list_recent_notes', { limit: 100 });
    const onceNotes = (notes.structuredContent as { notes: { url: string }[] }).notes.filter(
      (entry) => entry.url === 'https://replay.example/once',
    );
    expect(onceNotes).toHaveLength(1);
    const reused = await call(client, 'save_bookmark', { ...args, selection: 'Something else.' });
    expect(reused.isError).toBe(true);
    expect(textOf(reused)).toContain('used before for another save');
    await client.close();
  });

  it("deletes the answers kept for a user's MCP idempotency keys with the account", async () => {
    const leaving = await signedInUser(t);
    const token = await oauthAccessToken(t, leaving.user.id, ['notes:write'], `${oauth.issuer.origin}/mcp`);
    const client = await connect(token);
    await call(client, 'save_bookmark', { url: 'https://leaving.example/', idempotency_key: 'k-1' });
    await client.close();
    const kept = () =>
      t.table.doc
        .send(
          new QueryCommand({
            TableName: t.table.tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': `IDEMPOTENCY#mcp:${leaving.user.id}` },
          }),
        )
        .then((answer) => answer.Count);
    expect(await kept()).toBe(1);
    expect((await leaving.api('/api/v2/me', { method: 'DELETE', body: { confirm: 'delete my account' } })).status).toBe(
      204,
    );
    expect(await kept()).toBe(0);
  });

  it('refuses a request from a foreign Origin (DNS rebinding) and admits its own', async () => {
    const foreign = await rpc(owner.token, 'tools/list', {}, { Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    const own = await rpc(owner.token, 'tools/list', {}, { Origin: oauth.issuer.origin });
    expect(own.status).toBe(200);
  });

  it('answers oversized and malformed arguments with tool errors, and an oversized body with 413', async () => {
    const client = await connect(owner.token);
    for (const [name, args, message] of [
      ['search_notes', { query: 'x'.repeat(5000) }, /query/],
      ['search_notes', { query: 'word', limit: 10_000 }, /limit/],
      ['save_bookmark', { url: 'https://big.example/', selection: 'x'.repeat(30_000) }, /selection/],
      ['add_tags', { note_id: randomUUID(), tags: Array.from({ length: 60 }, (_, index) => `t${index}`) }, /tags/],
      ['get_note', { note_id: 'not-a-note' }, /note_id/],
      ['get_note', { note_id: randomUUID() }, /No such note/],
      ['save_bookmark', { url: 'javascript:alert(1)' }, /url/],
      ['list_recent_notes', { cursor: 'not-a-cursor' }, /cursor/],
      ['search_notes', { query: 'word', cursor: 'not-a-cursor' }, /cursor/],
      ['add_note_to_feed', { note_id: randomUUID(), feed_id: 'feed' }, /feed_id/],
    ] as const) {
      const result = await call(client, name, args);
      expect(result.isError, `${name} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      expect(textOf(result)).toMatch(message);
    }
    await expect(client.readResource({ uri: 'note://not-a-uuid' })).rejects.toThrow(/not a UUID/);
    const huge = await rpc(owner.token, 'tools/call', {
      name: 'search_notes',
      arguments: { query: 'x'.repeat(600_000) },
    });
    expect(huge.status).toBe(413);
    await client.close();
  });

  it("counts calls against the user and the client, with the REST API's RateLimit headers", async () => {
    const answer = await rpc(owner.token, 'tools/call', { name: 'list_tags', arguments: {} });
    expect(answer.status).toBe(200);
    for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy'])
      expect(answer.headers.get(name), name).toMatch(/\d/);
    // Each client of a user has its own quota (500 an hour here, MCP_CLIENT_RATE_LIMIT) within the user's
    // (600 a minute): the headers name the one with less left.
    await createLoginUser(t, 'counted@example.com', PASSWORD);
    const counted = await signedIn(t, 'counted@example.com', PASSWORD);
    for (const client of ['First', 'Second']) {
      const token = await mcpToken(counted, 'notes:read', `${client} assistant`);
      for (const remaining of ['499', '498']) {
        const answered = await rpc(token, 'tools/list');
        expect(answered.headers.get('ratelimit-policy')).toBe('500;w=3600');
        expect(answered.headers.get('ratelimit-remaining')).toBe(remaining);
      }
    }
    expect(answer.headers.get('cache-control')).toBe('private, no-store');
  });

  describe('attacks generated from the tool list', () => {
    /** Every tool the server lists, so a new tool gets these attacks without their being written again. */
    const listedTools = async () => {
      const client = await connect(owner.token);
      const { tools } = await client.listTools();
      await client.close();
      expect(tools.length).toBeGreaterThan(5);
      return tools;
    };
    const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const post = (body: unknown) =>
      fetch(mcpUrl, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2025-06-18',
          Authorization: `Bearer ${owner.token}`,
        },
        body: JSON.stringify(body),
      });

    it('refuses a JSON-RPC batch (MCP 2025-06-18 dropped batching) with Invalid Request for every tool, running none of its calls', async () => {
      const save = (id: number) => toolCall(id, 'save_bookmark', { url: `https://batch.example/${id}` });
      const batches = [
        [save(1)],
        ...(await listedTools()).map((tool, index) => [toolCall(index + 10, tool.name, {}), save(index + 100)]),
      ];
      for (const batch of batches) {
        const answer = await post(batch);
        expect(answer.status, JSON.stringify(batch)).toBe(400);
        expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      }
      const client = await connect(owner.token);
      const recent = await call(client, 'list_recent_notes', { limit: 50 });
      expect(textOf(recent)).not.toContain('batch.example');
      await client.close();
    });

    it('answers an over-long search word to every tool that takes a query with a result or a refusal, never a server error', async () => {
      const searching = (await listedTools()).filter((tool) => 'query' in (tool.inputSchema.properties ?? {}));
      expect(searching.map((tool) => tool.name)).toContain('search_notes');
      for (const tool of searching)
        for (const length of [QUERY_MAX_LENGTH, QUERY_MAX_LENGTH + 1, 20_000]) {
          const answer = await post(toolCall(1, tool.name, { query: 'w'.repeat(length) }));
          expect(answer.status, `${tool.name} ${length}`).toBe(200);
          const text = await answer.text();
          expect(text, `${tool.name} ${length}`).not.toContain('-32603');
          expect(text, `${tool.name} ${length}`).toContain('"result"');
        }
    });
  });
});

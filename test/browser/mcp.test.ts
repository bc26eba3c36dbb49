import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, chromiumAvailable } from '../support/browser';
import type { TestStack } from '../support/local-stack';
import { type BrowserStack, startBrowserStack } from '../support/signed-in-browser';
import { createLoginUser } from '../support/web-client';

/**
 * An MCP client as assistants build it: the SDK's own Client with StreamableHTTPClientTransport and an
 * OAuthClientProvider, given nothing but the server's address. It is refused (401), finds the
 * authorization server from the resource metadata the challenge names, registers itself, and sends
 * the person to the consent page, which they answer in Chromium. Then it lists the tools and calls
 * each one, and refreshes its token on its own when the access token no longer works.
 */

const EMAIL = 'reader@example.com';
const PASSWORD = 'a long enough password';
/** Where the client wants the person back; Chromium's requests there are answered by the test. */
const REDIRECT_URL = 'http://127.0.0.1:45999/callback';

/** What an assistant keeps: its registration, its tokens, the PKCE verifier, and where it sent the person. */
class AssistantAuth implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  get redirectUrl() {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test Assistant',
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.client;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.client = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe.skipIf(!chromiumAvailable())('an MCP client with the SDK’s OAuth provider, consent in Chromium', () => {
  let session: BrowserStack;
  let t: TestStack;
  let page: Page;
  let mcpUrl: URL;
  let userId: string;

  beforeAll(async () => {
    session = await startBrowserStack({}, { searchIndex: true });
    t = session.t;
    mcpUrl = new URL(`${t.stack.webBaseUrl}/mcp`);
    userId = (await createLoginUser(t, EMAIL, PASSWORD)).id;
    const context = await session.browser.newContext();
    await context.route(`${REDIRECT_URL}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'Back in the assistant' }),
    );
    page = await context.newPage();
  }, 120_000);

  afterAll(() => session?.stop());

  it('discovers the authorization server from the 401, registers, gets consent, lists the tools and calls each one', async () => {
    const auth = new AssistantAuth();
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth });
    await expect(new Client({ name: 'test-assistant', version: '1.0.0' }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    // From the challenge's resource_metadata: registered at the authorization server, asked for this resource.
    expect(auth.client?.client_id).toBeTruthy();
    const authorizationUrl = auth.authorizationUrl!;
    expect(authorizationUrl.origin).toBe(mcpUrl.origin);
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl.href);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

    await page.goto(authorizationUrl.href);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Allow Test Assistant to use your Gleaner account?');
    const scopes = await page.locator('dl.scopes dt').allTextContents();
    expect(scopes).toEqual(
      expect.arrayContaining(['notes:read', 'notes:write', 'feeds:read', 'feeds:write', 'review']),
    );
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((url) => url.href.startsWith(REDIRECT_URL));
    const callback = new URL(page.url());
    await first.finishAuth(callback.searchParams.get('code')!);
    expect(auth.saved?.access_token).toBeTruthy();

    const client = new Client({ name: 'test-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }));
    const { tools } = await client.listTools();
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      return result.structuredContent as Record<string, any>;
    };
    const saved = await call('save_bookmark', {
      url: 'https://assistant.example/article',
      title: 'What the assistant saved',
      selection: 'A highlight worth reviewing.',
      comment: '#assistant',
    });
    const review = await call('get_daily_review', {});
    expect(review.items.map((item: { text: string }) => item.text)).toEqual(['A highlight worth reviewing.']);
    const spare = await call('save_bookmark', { url: 'https://assistant.example/spare', title: 'Spare' });
    const feed = await t.createFeed(userId, { title: 'Shared', tags: ['shared'], match: 'any', sharing: 'public' });
    const calls: Record<string, Record<string, unknown>> = {
      save_bookmark: { url: 'https://assistant.example/second', title: 'Second' },
      add_highlight: { note_id: saved.note_id, quote: 'A second thought.' },
      get_note: { note_id: saved.note_id },
      list_recent_notes: {},
      list_tags: {},
      add_tags: { note_id: saved.note_id, tags: ['later'] },
      remove_tags: { note_id: saved.note_id, tags: ['later'] },
      set_reading_state: { note_id: saved.note_id, starred: true },
      list_feeds: {},
      add_note_to_feed: { note_id: saved.note_id, feed_id: feed.id },
      search_notes: { query: 'assistant' },
      get_daily_review: {},
      rate_highlight: { highlight_id: review.items[0].highlight_id, rating: 'good' },
      delete_note: { note_id: spare.note_id },
      restore_note: { note_id: spare.note_id },
    };
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(calls).sort());
    // By name, so delete_note comes before restore_note.
    for (const { name } of [...tools].sort((a, b) => a.name.localeCompare(b.name))) await call(name, calls[name]!);
    expect((await call('get_note', { note_id: saved.note_id })).tags).toEqual(['assistant', 'shared']);
    await client.close();

    // An access token that no longer works (401): the client refreshes on its own and goes on.
    auth.saved = { ...auth.saved!, access_token: 'no-longer-valid' };
    const again = new Client({ name: 'test-assistant', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: auth }));
    expect(auth.saved.access_token).not.toBe('no-longer-valid');
    expect((await again.listTools()).tools).toHaveLength(tools.length);
    await again.close();
  });

  it('shows the MCP address to copy, and the connected assistant, in Settings › Connected apps', async () => {
    await page.goto(`${t.stack.webBaseUrl}/settings/apps`);
    expect(await page.getByLabel('MCP server address').inputValue()).toBe(mcpUrl.href);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.stack.webBaseUrl });
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('[data-copied="mcp-address"]').textContent()).toBe('Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(mcpUrl.href);
    expect(await page.locator('main').textContent()).toContain('Test Assistant');
    expect(await axeViolations(page)).toEqual([]);
  });
});

import { lookup } from 'node:dns/promises';
import { type AddressInfo, createServer } from 'node:net';
import { hostname } from 'node:os';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicUnicast } from '../../functions/adapters/safe-fetch';
import { lastMailTo } from '../support/browser';
import { json, startTestStack, type TestStack } from '../support/local-stack';
import { insecure, type OAuthTestClient, oauthTestClient, REDIRECT_URI } from '../support/oauth-client';
import { tableItems } from '../support/owner';
import { createLoginUser, csrfTokenOf, signedIn, type WebClient } from '../support/web-client';

/**
 * The authorization server with a real OAuth client (oauth4webapi): dynamic registration, code +
 * PKCE through the consent page, a call to the per-user API, refresh with rotation, refusal of a
 * replayed refresh token (which revokes the grant), revocation, and Connected apps. Then the attacks.
 */

const PASSWORD = 'a long enough password';

describe('the OAuth 2.1 authorization server', () => {
  let t: TestStack;
  let as: oauth.AuthorizationServer;
  let issuer: URL;
  let browser: WebClient;
  let client: OAuthTestClient;

  beforeAll(async () => {
    t = await startTestStack();
    await createLoginUser(t, 'owner@example.com', PASSWORD);
    await createLoginUser(t, 'other@example.com', PASSWORD);
    browser = await signedIn(t, 'owner@example.com', PASSWORD);
    client = await oauthTestClient(t);
    ({ as, issuer } = client);
  });

  afterAll(async () => {
    await t?.stop();
  });

  const register = (name?: string) => client.register(name);
  const authorizationUrl = (registered: oauth.Client, params: Record<string, string>) =>
    client.authorizationUrl(registered, params);
  /** The consent page names the client and says what each scope allows. */
  const onConsent = (page: string) => {
    expect(page).toMatch(/Reading app|Revoked app/);
    expect(page).toContain('Read and search your notes, highlights and tags');
  };
  /** Runs the authorization request through sign-in and the consent page; the URL the browser ends at. */
  const authorize = (registered: oauth.Client, params: Record<string, string>) =>
    client.authorize(browser, registered, params, onConsent);
  const codeFlow = (registered: oauth.Client, resource = `${issuer.origin}/api/v2/me`) =>
    client.codeFlow(browser, registered, { resource, onConsent });

  const me = (accessToken: string) =>
    fetch(`${t.stack.baseUrl}/api/v2/me`, { headers: { Authorization: `Bearer ${accessToken}` } });

  it('publishes RFC 8414 metadata and OpenID discovery: code + S256 only, registration, revocation', async () => {
    expect(as.issuer).toBe(issuer.origin);
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.grant_types_supported).not.toContain('implicit');
    expect(as.grant_types_supported).not.toContain('password');
    expect(as.registration_endpoint).toBe(`${issuer.origin}/oauth/register`);
    expect(as.revocation_endpoint).toBe(`${issuer.origin}/oauth/revoke`);
    const openid = await json(await fetch(`${t.stack.baseUrl}/.well-known/openid-configuration`));
    expect(openid.issuer).toBe(issuer.origin);
    const resource = await json(await fetch(`${t.stack.baseUrl}/.well-known/oauth-protected-resource/api/v2/me`));
    expect(resource).toMatchObject({ resource: `${issuer.origin}/api/v2/me`, authorization_servers: [issuer.origin] });
  });

  it('registers a client, runs code + PKCE through consent, calls /api/v2/me, refreshes, and refuses a replayed refresh token', async () => {
    const client = await register();
    const tokens = await codeFlow(client);
    expect(tokens.refresh_token).toBeTruthy();

    const account = await me(tokens.access_token);
    expect(account.status).toBe(200);
    expect(await json(account)).toMatchObject({ email: 'owner@example.com' });

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await me(refreshed.access_token)).status).toBe(200);

    // The old refresh token again, later than a concurrent refresh would come (5 s): a replay, refused,
    // and the whole grant is revoked with it.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    const replay = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    expect(replay.status).toBe(400);
    expect((await json(replay)).error).toBe('invalid_grant');
    expect((await me(refreshed.access_token)).status).toBe(401);
    const again = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure);
    expect(again.status).toBe(400);
  });

  /** The same grant request sent `times` at once: the statuses and error codes of the answers. */
  async function race(times: number, send: () => Promise<Response>) {
    const answers = await Promise.all(Array.from({ length: times }, send));
    return Promise.all(
      answers.map(async (answer) => ({ status: answer.status, body: (await json(answer)) as Record<string, unknown> })),
    );
  }

  it('answers requests racing for one authorization code with one set of tokens and invalid_grant for the rest, revoking the grant', async () => {
    const client = await register();
    const verifier = oauth.generateRandomCodeVerifier();
    const callback = await authorize(client, {
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const params = oauth.validateAuthResponse(as, client, callback, 'state-1');
    const answers = await race(4, () =>
      oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, verifier, insecure),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400, 400]);
    for (const { body } of answers.filter((answer) => answer.status === 400)) expect(body.error).toBe('invalid_grant');
    // A code used twice revokes what it gave (RFC 6749 4.1.2): the refresh token is refused.
    const winner = answers.find((answer) => answer.status === 200)!.body;
    const refresh = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      String(winner.refresh_token),
      insecure,
    );
    expect(refresh.status).toBe(400);
  });

  it('answers requests racing for one refresh token with one rotation whose tokens work, and invalid_grant for the rest', async () => {
    const client = await register();
    const tokens = await codeFlow(client);
    const answers = await race(4, () =>
      oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400, 400]);
    for (const { body } of answers.filter((answer) => answer.status === 400)) expect(body.error).toBe('invalid_grant');
    const winner = answers.find((answer) => answer.status === 200)!.body;
    expect((await me(String(winner.access_token))).status).toBe(200);
    const next = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), String(winner.refresh_token), insecure);
    expect(next.status).toBe(200);
    expect((await me(String((await json(next)).access_token))).status).toBe(200);
  });

  it('revokes a token (RFC 7009) and lists and revokes grants in Settings › Connected apps', async () => {
    const client = await register('Revoked app');
    const tokens = await codeFlow(client);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), tokens.access_token, insecure),
    );
    expect((await me(tokens.access_token)).status).toBe(401);

    const second = await codeFlow(client);
    const page = await browser.request('/settings/apps');
    const html = await page.text();
    expect(html).toContain('Revoked app');
    const grantId = /Revoked app<\/strong>[\s\S]*?name="grant" value="([^"]+)"/.exec(html)![1]!;

    // Another user cannot revoke it, not even knowing its id.
    const other = await signedIn(t, 'other@example.com', PASSWORD);
    const otherPage = await (await other.request('/settings/apps')).text();
    expect(otherPage).not.toContain('Revoked app');
    expect((await other.post('/settings/apps/revoke', { csrf: csrfTokenOf(otherPage), grant: grantId })).status).toBe(
      404,
    );
    expect((await me(second.access_token)).status).toBe(200);

    const revoked = await browser.post('/settings/apps/revoke', { csrf: csrfTokenOf(html), grant: grantId });
    expect(revoked.status).toBe(303);
    expect((await me(second.access_token)).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), second.refresh_token!, insecure);
    expect(refresh.status).toBe(400);
  });

  it('keeps tokens and codes in the table only as hashes: the tokens still work, refresh and revoke', async () => {
    const registered = await register();
    const verifier = oauth.generateRandomCodeVerifier();
    const callback = await authorize(registered, {
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const params = oauth.validateAuthResponse(as, registered, callback, 'state-1');
    const code = params.get('code')!;
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      registered,
      await oauth.authorizationCodeGrantRequest(as, registered, oauth.None(), params, REDIRECT_URI, verifier, {
        additionalParameters: { resource: `${issuer.origin}/api/v2/me` },
        ...insecure,
      }),
    );
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      registered,
      await oauth.refreshTokenGrantRequest(as, registered, oauth.None(), tokens.refresh_token!, insecure),
    );
    const secrets = [
      code,
      tokens.access_token,
      tokens.refresh_token!,
      refreshed.access_token,
      refreshed.refresh_token!,
      String(registered.registration_access_token ?? ''),
    ].filter(Boolean);
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    // Every key and attribute of every item, nested payloads included.
    const table = JSON.stringify(await tableItems(t));
    for (const secret of secrets) expect(table).not.toContain(secret);

    expect((await me(refreshed.access_token)).status).toBe(200);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, registered, oauth.None(), refreshed.refresh_token!, insecure),
    );
    // Revoking the refresh token ends the grant with the access token issued beside it.
    expect((await me(refreshed.access_token)).status).toBe(401);
    const again = await oauth.refreshTokenGrantRequest(
      as,
      registered,
      oauth.None(),
      refreshed.refresh_token!,
      insecure,
    );
    expect(again.status).toBe(400);
  });

  describe('attacks', () => {
    it('registers public clients only, without a client_secret, with bounded metadata and http redirect URIs on loopback only', async () => {
      const registerWith = (metadata: Record<string, unknown>) =>
        fetch(as.registration_endpoint!, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI], ...metadata }),
        });
      const plain = await registerWith({ client_name: 'No method named' });
      expect(plain.status).toBe(201);
      const registered = await json(plain);
      expect(registered.token_endpoint_auth_method).toBe('none');
      expect(registered).not.toHaveProperty('client_secret');
      expect(as.token_endpoint_auth_methods_supported).toEqual(['none']);
      for (const metadata of [
        { client_name: 'x'.repeat(50_000) },
        { redirect_uris: ['http://app.example/callback'] },
        { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${9000 + i}/callback`) },
        { client_uri: `https://app.example/${'x'.repeat(5000)}` },
      ]) {
        const refused = await registerWith(metadata);
        expect(refused.status, JSON.stringify(metadata).slice(0, 80)).toBe(400);
        expect((await json(refused)).error).toBe('invalid_client_metadata');
      }
      expect((await registerWith({ redirect_uris: ['http://[::1]:8765/cb', 'https://app.example/cb'] })).status).toBe(
        201,
      );
    });

    it('never connects to a Client ID Metadata Document host whose name resolves to loopback (no port probe)', async () => {
      // This machine's own name resolves to one of its own addresses (loopback here: 127.0.0.1 vm).
      const name = hostname();
      const { address } = await lookup(name);
      expect(isPublicUnicast(address), `${name} resolves to ${address}`).toBe(false);
      let connections = 0;
      const listener = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(0, address, resolve));
      try {
        const port = (listener.address() as AddressInfo).port;
        for (const clientId of [`https://${name}:${port}/cimd.json`, `https://${name}/cimd.json`]) {
          const url = new URL(as.authorization_endpoint!);
          for (const [key, value] of Object.entries({
            client_id: clientId,
            redirect_uri: 'https://app.example/callback',
            response_type: 'code',
            code_challenge: 'a'.repeat(43),
            code_challenge_method: 'S256',
          }))
            url.searchParams.set(key, value);
          const answer = await fetch(url, { redirect: 'manual' });
          expect(answer.status).toBe(400);
        }
        expect(connections).toBe(0);
      } finally {
        listener.close();
      }
    });

    /** The ids of the authorization server's logins (Session records) of a user, and whether each is stored. */
    const providerLogins = async (userId: string) => {
      const { Items } = await t.table.doc.send(
        new QueryCommand({
          TableName: t.table.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': `USER#${userId}`, ':prefix': 'OIDCSESSION#' },
        }),
      );
      const ids = (Items ?? []).map((item) => String(item.sessionId));
      const stored = await Promise.all(
        ids.map(async (id) => {
          const { Item } = await t.table.doc.send(
            new GetCommand({ TableName: t.table.tableName, Key: { pk: `OIDC#Session#${id}`, sk: 'OIDC' } }),
          );
          return Item !== undefined;
        }),
      );
      return { ids, stored };
    };
    const NEW_PASSWORD = 'another long enough password';
    let endingsApp: Promise<oauth.Client> | undefined;
    /** Each way a login ends: done by the person's browser or from another of theirs. */
    const endings: Record<string, (person: WebClient, elsewhere: WebClient, email: string) => Promise<void>> = {
      'sign out': async (person) => {
        const account = await (await person.request('/account')).text();
        expect((await person.post('/signout', { csrf: csrfTokenOf(account) })).status).toBe(303);
      },
      'sign out everywhere': async (_person, elsewhere) => {
        const account = await (await elsewhere.request('/account')).text();
        expect((await elsewhere.post('/signout', { csrf: csrfTokenOf(account), everywhere: 'true' })).status).toBe(303);
      },
      'password reset': async (_person, elsewhere, email) => {
        expect((await elsewhere.post('/forgot-password', { email })).status).toBe(303);
        const token = new URL(lastMailTo(t.stack.mailFolder, email)!.link).searchParams.get('token')!;
        expect((await elsewhere.post('/set-password', { token, password: NEW_PASSWORD })).status).toBe(303);
      },
      'password change': async (_person, elsewhere) => {
        const account = await (await elsewhere.request('/account')).text();
        const changed = await elsewhere.post('/account/password', {
          csrf: csrfTokenOf(account),
          'password-current': PASSWORD,
          'new-password': NEW_PASSWORD,
        });
        expect(changed.status).toBe(303);
      },
      'account deletion': async (_person, elsewhere) => {
        const account = await (await elsewhere.request('/account')).text();
        const deleted = await elsewhere.request('/api/v2/me', {
          method: 'DELETE',
          headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrfTokenOf(account) },
          body: JSON.stringify({ confirm: 'delete my account' }),
        });
        expect(deleted.status).toBe(204);
      },
    };

    it.each(Object.keys(endings))(
      "ends the authorization server's own login (its Session records) on %s; another user's stays",
      async (ending) => {
        // One client for all of them: registrations are rate-limited per address.
        endingsApp ??= register();
        const app = await endingsApp;
        const slug = ending.replace(/\W+/g, '-');
        const email = `ends-${slug}@example.com`;
        const user = await createLoginUser(t, email, PASSWORD);
        const other = await createLoginUser(t, `keeps-${slug}@example.com`, PASSWORD);
        const person = await signedIn(t, email, PASSWORD);
        const bystander = await signedIn(t, `keeps-${slug}@example.com`, PASSWORD);
        await client.codeFlow(person, app);
        await client.codeFlow(bystander, app);
        expect((await providerLogins(user.id)).stored).toEqual([true]);
        const kept = await providerLogins(other.id);
        expect(kept.stored).toEqual([true]);

        await endings[ending]!(person, await signedIn(t, email, PASSWORD), email);

        const after = await providerLogins(user.id);
        expect(after.ids).toEqual([]);
        expect(after.stored).toEqual([]);
        expect(await providerLogins(other.id)).toEqual(kept);
        const { url } = await person.follow(
          authorizationUrl(app, { code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }),
        );
        expect(new URL(url).pathname).toBe('/signin');
        expect(new URL(url).searchParams.get('code')).toBeNull();
      },
    );

    it('answers an interaction that is over or unknown with a page saying to start again, as Back or a reload after Allow does', async () => {
      const unknown = await fetch(`${t.stack.baseUrl}/oauth/interaction/anything`, { redirect: 'manual' });
      expect(unknown.status).toBe(400);
      const page = await unknown.text();
      expect(page).toContain('This sign-in step has expired');
      expect(page).toContain('<a href="/">Back to Gleaner</a>');

      const client = await register();
      const { response, url } = await browser.follow(
        authorizationUrl(client, { code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }),
      );
      const consent = await response.text();
      const csrf = csrfTokenOf(consent);
      const allowed = await browser.post(`${new URL(url).pathname}/confirm`, { csrf });
      expect(allowed.status).toBe(303);
      expect(
        new URL((await browser.follow(allowed.headers.get('location')!)).url).searchParams.get('code'),
      ).toBeTruthy();
      for (const again of [
        () => browser.request(new URL(url).pathname),
        () => browser.post(`${new URL(url).pathname}/confirm`, { csrf }),
      ]) {
        const answer = await again();
        expect(answer.status).toBe(400);
        expect(await answer.text()).toContain('This sign-in step has expired');
      }
      // The server is still there.
      expect((await fetch(`${t.stack.baseUrl}/.well-known/oauth-authorization-server`)).status).toBe(200);
    });

    it('refuses every bad authorization request of a client not yet trusted on its own page, never by a redirect to it', async () => {
      const client = await register();
      const pkce = { code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' };
      const requests: Record<string, string>[] = [
        {},
        { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' },
        { ...pkce, response_type: 'token' },
        { ...pkce, resource: 'https://elsewhere.example/api' },
        { ...pkce, prompt: 'none' },
        { ...pkce, request: 'eyJhbGciOiJub25lIn0.e30.' },
        { ...pkce, response_mode: 'form_post', resource: 'https://elsewhere.example/api' },
        { ...pkce, response_mode: 'fragment', prompt: 'none' },
        { ...pkce, max_age: 'soon' },
      ];
      for (const params of requests) {
        // Nobody signed in: a self-registered client's redirect URI would otherwise be an open redirect.
        const answer = await fetch(authorizationUrl(client, params), { redirect: 'manual' });
        expect(answer.status, JSON.stringify(params)).toBe(400);
        expect(answer.headers.get('location')).toBeNull();
        expect(await answer.text()).toContain('This sign-in request cannot go on');
        const { url } = await browser.follow(authorizationUrl(client, params));
        expect(new URL(url).origin).toBe(issuer.origin);
      }
      // Once this browser's login has approved the client, its errors go back to it, as the protocol says.
      await codeFlow(client);
      const elsewhere = { ...pkce, resource: 'https://elsewhere.example/api' };
      const { url } = await browser.follow(authorizationUrl(client, elsewhere));
      expect(url.startsWith(REDIRECT_URI), url).toBe(true);
      expect(new URL(url).searchParams.get('error')).toBe('invalid_target');
    });

    it('refuses a redirect_uri that is not registered exactly, without redirecting to it', async () => {
      const client = await register();
      for (const wrong of [
        'http://127.0.0.1:9/callback/',
        'http://127.0.0.1:9/callback?x=1',
        'http://evil.example/callback',
      ]) {
        const { response, url } = await browser.follow(
          authorizationUrl(client, {
            redirect_uri: wrong,
            code_challenge: 'a'.repeat(43),
            code_challenge_method: 'S256',
          }),
        );
        expect(new URL(url).origin).toBe(issuer.origin);
        expect(response.status).toBe(400);
      }
    });

    it('refuses the implicit flow and registration of confidential clients', async () => {
      const client = await register();
      const implicit = await browser.follow(authorizationUrl(client, { response_type: 'token' }));
      expect(implicit.response.status).toBe(400);
      expect(implicit.url).not.toContain('access_token');
      const confidential = await fetch(as.registration_endpoint!, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' }),
      });
      expect(confidential.status).toBe(400);
      expect((await json(confidential)).error).toBe('invalid_client_metadata');
    });

    it('refuses on /api/v2/me a token issued for another resource (/mcp)', async () => {
      const client = await register();
      const tokens = await codeFlow(client, `${issuer.origin}/mcp`);
      const answer = await me(tokens.access_token);
      expect(answer.status).toBe(401);
      expect((await json(answer)).detail).toContain('another resource');
    });

    it('refuses a personal access token on /api/v2, saying such tokens only save bookmarks', async () => {
      const { token } = await t.createUser();
      const answer = await me(token);
      expect(answer.status).toBe(401);
      expect((await json(answer)).detail).toMatch(/Personal access tokens only save bookmarks/);
    });
  });
});

import * as oauth from 'oauth4webapi';
import type { TestStack } from './local-stack';
import { csrfTokenOf, type WebClient } from './web-client';

/**
 * An OAuth client (oauth4webapi) of the local stack's authorization server, with a signed-in
 * WebClient as its person's browser: dynamic registration, then code + PKCE through the consent page.
 */

export const insecure = { [oauth.allowInsecureRequests]: true } as const;
export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export type OAuthTestClient = Awaited<ReturnType<typeof oauthTestClient>>;

export async function oauthTestClient(t: TestStack) {
  const issuer = new URL(t.stack.webBaseUrl);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
  const ownerApi = `${issuer.origin}/api/v2/me`;

  async function register(name = 'Reading app'): Promise<oauth.Client> {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: name,
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      insecure,
    );
    return oauth.processDynamicClientRegistrationResponse(response);
  }

  function authorizationUrl(client: oauth.Client, params: Record<string, string>): string {
    const url = new URL(as.authorization_endpoint!);
    for (const [name, value] of Object.entries({
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'notes:read offline_access',
      resource: ownerApi,
      state: 'state-1',
      ...params,
    }))
      if (value !== '') url.searchParams.set(name, value);
    return url.toString();
  }

  /**
   * Runs the authorization request through sign-in and the consent page (`onConsent` sees the page
   * first); the URL the browser ends at.
   */
  async function authorize(
    browser: WebClient,
    client: oauth.Client,
    params: Record<string, string>,
    onConsent: (page: string) => void = () => {},
  ): Promise<URL> {
    let { response, url } = await browser.follow(authorizationUrl(client, params));
    if (response.status === 200 && url.includes('/oauth/interaction/')) {
      const page = await response.text();
      onConsent(page);
      const confirm = await browser.post(`${new URL(url).pathname}/confirm`, { csrf: csrfTokenOf(page) });
      ({ response, url } = await browser.follow(confirm.headers.get('location')!));
    }
    return new URL(url);
  }

  /** Code + PKCE for `resource` with `scope`: the token response. */
  async function codeFlow(
    browser: WebClient,
    client: oauth.Client,
    options: { resource?: string; scope?: string; onConsent?: (page: string) => void } = {},
  ) {
    const resource = options.resource ?? ownerApi;
    const verifier = oauth.generateRandomCodeVerifier();
    const callback = await authorize(
      browser,
      client,
      {
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        resource,
        ...(options.scope ? { scope: options.scope } : {}),
      },
      options.onConsent,
    );
    const params = oauth.validateAuthResponse(as, client, callback, 'state-1');
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      REDIRECT_URI,
      verifier,
      { additionalParameters: { resource }, ...insecure },
    );
    return oauth.processAuthorizationCodeResponse(as, client, response);
  }

  return { issuer, as, register, authorizationUrl, authorize, codeFlow };
}

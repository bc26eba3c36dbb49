import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Configuration, interactionPolicy, KoaContextWithOIDC, errors as ProviderErrors } from 'oidc-provider';
import type { DynamoClients } from '../adapters/dynamo/client';
import { createSafeFetcher, type SafeFetcher } from '../adapters/safe-fetch';
import type { OAuthKeys } from '../core/identity/oauth-keys';
import { ALL_SCOPES } from '../core/identity/principal';
import { RESOURCE_SCOPES, resourceIdentifier, resourceNamed } from '../core/identity/resources';
import { authorizationErrorPage } from '../core/web/oauth-pages';
import { type OwnerAuthDeps, sessionOf } from '../http/owner-auth';
import { ProviderAdapter } from './adapter';

/**
 * oidc-provider's configuration for Gleaner (as its example app's support/configuration.js): code +
 * PKCE only, public clients, rotating refresh tokens, audience-bound opaque access tokens, and the
 * interaction pages at /oauth/interaction/<uid> (interactions.ts).
 */

/** Where oidc-provider's endpoints are, under the one proxy route. */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/logout',
  pushed_authorization_request: '/oauth/par',
} as const;

/** The request's Lambda event, carried on the Node request serverless-http builds from it. */
export type EventRequest = IncomingMessage & { lambdaEvent?: APIGatewayProxyEvent };

/** What the configuration uses of the oidc-provider module, loaded with the first request. */
export interface ProviderModule {
  readonly errors: typeof ProviderErrors;
  readonly interactionPolicy: typeof interactionPolicy;
}

export interface ConfigurationDeps extends OwnerAuthDeps {
  readonly doc: DynamoClients['doc'];
  readonly tableName: string;
}

export function configuration(
  deps: ConfigurationDeps,
  issuer: string,
  keys: OAuthKeys,
  { errors, interactionPolicy }: ProviderModule,
): Configuration {
  const ownerApi = resourceIdentifier(issuer, 'ownerApi');
  return {
    adapter: (name: string) => new ProviderAdapter(name, deps.doc, deps.tableName, errors),
    jwks: keys.jwks as Configuration['jwks'],
    cookies: { keys: [...keys.cookieKeys] },
    routes: OAUTH_ROUTES,
    scopes: ['openid', 'offline_access', ...ALL_SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    pkce: { required: () => true },
    // Public clients only (see checkRegistration): discovery lists no secret-based method.
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: {
      url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}`,
      policy: loginFollowsWebSession(deps, interactionPolicy),
    },
    // Refresh tokens rotate at every use; replaying a used one revokes the whole grant (oidc-provider).
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      RefreshToken: 30 * 24 * 3600,
      Grant: 365 * 24 * 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      IdToken: 3600,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        // Only https documents on a host name; where they may be fetched from is `fetch`'s to decide.
        allowFetch: async (_ctx: KoaContextWithOIDC, clientId: string) => {
          const url = new URL(clientId);
          return url.protocol === 'https:' && isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) === 0;
        },
      },
      resourceIndicators: {
        enabled: true,
        // A client that names no resource gets a token for the per-user API.
        defaultResource: async () => ownerApi,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          const resource = resourceNamed(issuer, indicator);
          if (!resource) throw new errors.InvalidTarget('unknown resource indicator');
          return {
            scope: RESOURCE_SCOPES[resource].join(' '),
            audience: indicator,
            accessTokenFormat: 'opaque',
            accessTokenTTL: 3600,
          };
        },
      },
    },
    fetch: metadataDocumentFetch(createSafeFetcher({ maxRedirects: 0, maxBytes: 64 * 1024, totalTimeoutMs: 2500 })),
    renderError: async (ctx, out) => {
      // An error found on the way to a redirect (prompt=none's login_required) comes with its 303.
      if (ctx.status < 400) ctx.status = 400;
      ctx.type = 'html';
      ctx.body = authorizationErrorPage({ expired: false, reason: String(out.error_description ?? out.error) });
    },
  };
}

/**
 * oidc-provider's interaction policy with one more login check: the provider's own login (its
 * `_session` cookie, 14 days) counts only while the web app's session of the same person lives. Every
 * authorization request checks it, so signing out, "Sign out everywhere", a password reset or change,
 * and account deletion (which all end web sessions) end the provider's login with them: the request
 * goes back through the login prompt, which signs in from the web session or sends the browser to
 * Sign in (interactions.ts).
 */
function loginFollowsWebSession(deps: OwnerAuthDeps, policy: typeof interactionPolicy) {
  const prompts = policy.base();
  prompts.get('login')!.checks.add(
    new policy.Check('web_session', 'The Gleaner session of this login has ended', async (ctx: KoaContextWithOIDC) => {
      const event = (ctx.req as EventRequest).lambdaEvent;
      const session = event ? await sessionOf(deps, event) : null;
      return session && session.userId === ctx.oidc.session?.accountId
        ? policy.Check.NO_NEED_TO_PROMPT
        : policy.Check.REQUEST_PROMPT;
    }),
  );
  return prompts;
}

/**
 * How oidc-provider fetches (Client ID Metadata Documents): through safe-fetch, which resolves the
 * host name, checks every address it resolves to (public unicast only, ports 80 and 443) and connects
 * to the checked address, so a name that resolves to loopback or the VPC is never connected to, not
 * even to be refused (which made a port probe of it). No redirects; at most 64 KiB.
 */
function metadataDocumentFetch(fetcher: SafeFetcher): NonNullable<Configuration['fetch']> {
  return async (input) => {
    const answer = await fetcher.fetch(input instanceof Request ? input.url : String(input), {
      accept: 'application/json',
    });
    if (answer.truncated) throw new Error('the client metadata document is too large');
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}

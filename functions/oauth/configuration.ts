import type { Configuration, KoaContextWithOIDC, errors as ProviderErrors } from 'oidc-provider';
import type { DynamoClients } from '../adapters/dynamo/client';
import type { OAuthKeys } from '../core/identity/oauth-keys';
import { ALL_SCOPES } from '../core/identity/principal';
import { RESOURCE_SCOPES, resourceIdentifier, resourceNamed } from '../core/identity/resources';
import { authorizationErrorPage } from '../core/web/oauth-pages';
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

export interface ConfigurationDeps {
  readonly doc: DynamoClients['doc'];
  readonly tableName: string;
}

export function configuration(
  deps: ConfigurationDeps,
  issuer: string,
  keys: OAuthKeys,
  errors: typeof ProviderErrors,
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
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
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
        // Only https documents on a host name: never a fetch into a private network.
        allowFetch: async (_ctx: KoaContextWithOIDC, clientId: string) => {
          const url = new URL(clientId);
          return url.protocol === 'https:' && !/^(\[|\d+\.\d+\.\d+\.\d+$|localhost$)/.test(url.hostname);
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
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = authorizationErrorPage({ expired: false, reason: String(out.error_description ?? out.error) });
    },
  };
}

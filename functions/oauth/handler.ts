import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type serverless from 'serverless-http';
import { type DynamoClients, tableFromEnv } from '../adapters/dynamo/client';
import { AlreadyConsumedError, DynamoOAuthAdapter } from '../adapters/dynamo/oauth-adapter';
import { DynamoRateLimiter } from '../adapters/dynamo/rate-limiter';
import { loadOAuthKeys } from '../adapters/oauth-keys';
import { clientQuotaKey, type RateLimiter, type RateLimitPolicy } from '../core/contract/rate-limit';
import type { OAuthKeys } from '../core/identity/oauth-keys';
import { ALL_SCOPES } from '../core/identity/principal';
import {
  RESOURCE_SCOPES,
  type ResourceName,
  resourceIdentifier,
  resourceNamed,
  resourceOfMetadataPath,
} from '../core/identity/resources';
import { csrfTokenMatches } from '../core/identity/session';
import { CSRF_FIELD } from '../core/web/layout';
import { consentPage } from '../core/web/oauth-pages';
import { webPaths } from '../core/web/paths';
import { serviceBaseUrl } from '../http/base-url';
import { httpRoute } from '../http/middleware';
import { type OwnerAuthDeps, ownerAuthDeps, sessionOf } from '../http/owner-auth';
import { errorResponse, jsonResponse } from '../http/responses';
import { formFields, htmlResponse } from '../http/web';
import { deferred, type Environment } from '../platform/env';
import { createLogger } from '../platform/observability';
import { setting, settings } from '../platform/settings';
import { createTracing, type Tracing } from '../platform/tracing';

/**
 * The OAuth 2.1 authorization server: oidc-provider (a Koa application) behind one proxy route
 * (`/oauth/{proxy+}`) and the discovery documents, run through serverless-http. Gleaner's own code
 * here is only configuration and the interaction pages (sign in through the web app's session, then
 * consent); the protocol is oidc-provider's.
 */

export interface OAuthDeps extends OwnerAuthDeps {
  readonly doc: DynamoClients['doc'];
  readonly tableName: string;
  readonly keys: () => Promise<OAuthKeys>;
  readonly limiter: RateLimiter;
  readonly registrationPolicy: RateLimitPolicy;
  readonly logger: Logger;
  readonly tracing?: Tracing;
}

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

const INTERACTION_PATH = /^\/oauth\/interaction\/([\w-]+)(?:\/(confirm|abort))?$/;

/** The request's Lambda event, carried on the Node request serverless-http builds from it. */
type EventRequest = IncomingMessage & { lambdaEvent?: APIGatewayProxyEvent };

export function makeHandler(deps: OAuthDeps) {
  const servers = new Map<string, Promise<ReturnType<typeof serverless>>>();
  const serverFor = (issuer: string) => {
    let server = servers.get(issuer);
    if (!server) {
      server = buildServer(deps, issuer);
      servers.set(issuer, server);
    }
    return server;
  };
  return httpRoute(
    async (event) => {
      const issuer = serviceBaseUrl(event, deps.publicBaseUrl, deps.trustCdnHeaders);
      const refused = await refuseRegistration(deps, event);
      if (refused) return refused;
      const resource = resourceOfMetadataPath(event.path);
      if (resource) {
        return jsonResponse(200, protectedResourceMetadata(issuer, resource), {
          'Cache-Control': 'public, max-age=300',
        });
      }
      const server = await serverFor(issuer);
      // RFC 8414's address for the same metadata oidc-provider serves as OpenID discovery.
      const path =
        event.path === '/.well-known/oauth-authorization-server' ? '/.well-known/openid-configuration' : event.path;
      return (await server({ ...event, path }, {} as Context)) as APIGatewayProxyResult;
    },
    { logger: deps.logger, tracing: deps.tracing, corsOrigins: [] },
  );
}

/** RFC 9728: what a client needs to find the authorization server for a resource (the per-user API, MCP). */
function protectedResourceMetadata(issuer: string, resource: ResourceName) {
  return {
    resource: resourceIdentifier(issuer, resource),
    authorization_servers: [issuer],
    scopes_supported: RESOURCE_SCOPES[resource],
    bearer_methods_supported: ['header'],
  };
}

/**
 * Dynamic registration is open to public clients only (`token_endpoint_auth_method: none`, the
 * default here), and rate-limited per client address.
 */
async function refuseRegistration(deps: OAuthDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult | null> {
  if (event.httpMethod !== 'POST' || event.path !== OAUTH_ROUTES.registration) return null;
  const limit = await deps.limiter.hit(
    `oauth-register:ip:${clientQuotaKey(event.requestContext.identity.sourceIp)}`,
    deps.registrationPolicy,
  );
  if (!limit.allowed) {
    return errorResponse(429, 'Too many client registrations from this address; try again later', {
      'Retry-After': String(limit.resetSeconds),
    });
  }
  try {
    const body = JSON.parse(
      event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString() : (event.body ?? ''),
    );
    const method = body?.token_endpoint_auth_method;
    if (method !== undefined && method !== 'none') {
      return jsonResponse(400, {
        error: 'invalid_client_metadata',
        error_description: 'only public clients may register: token_endpoint_auth_method must be none',
      });
    }
  } catch {
    // oidc-provider answers a malformed body itself.
  }
  return null;
}

/** oidc-provider (with Koa) and serverless-http, loaded with the first request rather than at init. */
async function buildServer(deps: OAuthDeps, issuer: string) {
  const [oidc, { default: serverlessHttp }, keys] = await Promise.all([
    import('oidc-provider'),
    import('serverless-http'),
    deps.keys(),
  ]);
  const provider = new oidc.default(issuer, configuration(deps, issuer, keys, oidc.errors));
  // Behind API Gateway and CloudFront: trust X-Forwarded-Proto, so cookies may be Secure.
  provider.proxy = true;
  provider.on('server_error', (_ctx: unknown, error: Error) =>
    deps.logger.error('Authorization server error', { error }),
  );
  const callback = provider.callback();
  const application = async (request: EventRequest, response: ServerResponse) => {
    const interaction = INTERACTION_PATH.exec(request.url?.split('?')[0] ?? '');
    if (interaction && request.lambdaEvent) {
      await interact(
        deps,
        provider,
        request,
        response,
        request.lambdaEvent,
        (interaction[2] ?? null) as 'confirm' | 'abort' | null,
      );
      return;
    }
    await callback(request, response);
  };
  return serverlessHttp(application, {
    provider: 'aws',
    request: (request: EventRequest, event: APIGatewayProxyEvent) => {
      request.lambdaEvent = event;
      // serverless-http marks every request as arriving over TLS; the local stack's does not.
      (request.socket as { encrypted?: boolean }).encrypted = issuer.startsWith('https:');
    },
  });
}

/**
 * The table adapter as oidc-provider sees it: a request that lost the race for a code or refresh
 * token gets the protocol's invalid_grant, as a replay does, rather than a server error.
 */
class ProviderAdapter extends DynamoOAuthAdapter {
  constructor(
    name: string,
    doc: DynamoClients['doc'],
    tableName: string,
    private readonly errors: typeof import('oidc-provider').errors,
  ) {
    super(name, doc, tableName);
  }

  override async consume(id: string): Promise<void> {
    try {
      await super.consume(id);
    } catch (error) {
      if (error instanceof AlreadyConsumedError) throw new this.errors.InvalidGrant(error.message);
      throw error;
    }
  }
}

function configuration(
  deps: OAuthDeps,
  issuer: string,
  keys: OAuthKeys,
  errors: typeof import('oidc-provider').errors,
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
      } as never,
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
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error · Gleaner</title></head><body><main><h1>This sign-in request cannot go on</h1><p>${String(out.error_description ?? out.error).replace(/[<>&"']/g, '')}</p><p><a href="/">Back to Gleaner</a></p></main></body></html>`;
    },
  };
}

/**
 * The interaction pages: a login prompt finishes with the web app's session (or sends the browser to
 * Sign in and back); a consent prompt shows what the client asks for, and the Allow/Deny forms (with
 * the session's CSRF token) finish it.
 */
async function interact(
  deps: OAuthDeps,
  provider: Provider,
  request: IncomingMessage,
  response: ServerResponse,
  event: APIGatewayProxyEvent,
  action: 'confirm' | 'abort' | null,
): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  const session = await sessionOf(deps, event);
  const signIn = () =>
    redirect(response, `${webPaths.signIn}?next=${encodeURIComponent(`/oauth/interaction/${details.uid}`)}`);
  if (!session) return signIn();
  if (details.prompt.name === 'login') {
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: session.userId } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  // The consent is the signed-in user's own: a browser now signed in as someone else signs in again.
  if (details.session?.accountId !== session.userId) return signIn();
  if (action) {
    if (event.httpMethod !== 'POST' || !csrfTokenMatches(session, formFields(event).get(CSRF_FIELD))) {
      return send(response, errorResponse(403, 'Missing or invalid CSRF token: reload the page and try again'));
    }
    if (action === 'abort') {
      await provider.interactionFinished(
        request,
        response,
        { error: 'access_denied', error_description: 'The user denied access' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const grantId = await saveGrant(provider, details, session.userId);
    await provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
    return;
  }
  const client = await provider.Client.find(String(details.params.client_id));
  const redirectUri = String(details.params.redirect_uri ?? client?.redirectUris?.[0] ?? '');
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  const scopes = [
    ...new Set([...(missing.missingOIDCScope ?? []), ...Object.values(missing.missingResourceScopes ?? {}).flat()]),
  ];
  const html = consentPage({
    uid: details.uid,
    clientName: client?.clientName ?? String(details.params.client_id),
    redirectOrigin: safeOrigin(redirectUri),
    scopes,
    csrfToken: session.csrfToken,
  });
  send(response, htmlResponse(200, html, {}, { formAction: false }));
}

async function saveGrant(
  provider: Provider,
  details: Awaited<ReturnType<Provider['interactionDetails']>>,
  accountId: string,
): Promise<string> {
  const grant = details.grantId
    ? ((await provider.Grant.find(details.grantId)) ??
      new provider.Grant({ accountId, clientId: String(details.params.client_id) }))
    : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  return grant.save();
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function redirect(response: ServerResponse, location: string): void {
  // serverless-http's response does not chain writeHead.
  response.writeHead(303, { Location: location, 'Cache-Control': 'no-store' });
  response.end();
}

function send(response: ServerResponse, result: APIGatewayProxyResult): void {
  response.writeHead(result.statusCode, result.headers as Record<string, string>);
  response.end(result.body);
}

export function createHandler(env: Environment) {
  const logger = createLogger(env);
  const tracing = createTracing();
  const { doc, tableName } = tableFromEnv(env, tracing.instrument);
  let keys: Promise<OAuthKeys> | undefined;
  return makeHandler({
    ...ownerAuthDeps(env, doc),
    doc,
    tableName,
    keys: () => (keys ??= loadOAuthKeys(env)),
    limiter: new DynamoRateLimiter(doc, tableName),
    registrationPolicy: setting(env, settings.oauthRegistrationLimit),
    logger,
    tracing,
  });
}

export const handler = deferred(() => createHandler(process.env));

import type { ServerResponse } from 'node:http';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { errors, KoaContextWithOIDC } from 'oidc-provider';
import type serverless from 'serverless-http';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoRateLimiter } from '../adapters/dynamo/rate-limiter';
import { loadOAuthKeys } from '../adapters/oauth-keys';
import { clientQuotaKey, type RateLimiter, type RateLimitPolicy } from '../core/contract/rate-limit';
import type { OAuthKeys } from '../core/identity/oauth-keys';
import {
  RESOURCE_SCOPES,
  type ResourceName,
  resourceIdentifier,
  resourceOfMetadataPath,
} from '../core/identity/resources';
import { serviceBaseUrl } from '../http/base-url';
import { httpRoute } from '../http/middleware';
import { ownerAuthDeps } from '../http/owner-auth';
import { errorResponse, jsonResponse } from '../http/responses';
import { deferred, type Environment } from '../platform/env';
import { createLogger } from '../platform/observability';
import { setting, settings } from '../platform/settings';
import { createTracing, type Tracing } from '../platform/tracing';
import { type ConfigurationDeps, configuration, type EventRequest, OAUTH_ROUTES } from './configuration';
import { INTERACTION_PATH, interact, interactionFailure, send } from './interactions';

/**
 * The OAuth 2.1 authorization server: oidc-provider (a Koa application) behind one proxy route
 * (`/oauth/{proxy+}`) and the discovery documents, run through serverless-http. Gleaner's own code
 * here is only configuration (configuration.ts), the storage adapter (adapter.ts) and the interaction
 * pages (interactions.ts: sign in through the web app's session, then consent); the protocol is
 * oidc-provider's. Laid out as oidc-provider's example application is.
 */

export interface OAuthDeps extends ConfigurationDeps {
  readonly keys: () => Promise<OAuthKeys>;
  readonly limiter: RateLimiter;
  readonly registrationPolicy: RateLimitPolicy;
  readonly logger: Logger;
  readonly tracing?: Tracing;
}

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
    async (received) => {
      const issuer = serviceBaseUrl(received, deps.publicBaseUrl, deps.trustCdnHeaders);
      const checked = await checkRegistration(deps, received);
      if ('refused' in checked) return checked.refused;
      const { event } = checked;
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
 * Dynamic registration is open to public clients only (`token_endpoint_auth_method: none`, written
 * into the request when it names none, so that oidc-provider gives no client_secret), rate-limited
 * per client address, with bounded metadata (REGISTRATION_LIMITS) and `http` redirect URIs on
 * loopback only (a native app's). Another request passes unchanged.
 */
async function checkRegistration(
  deps: OAuthDeps,
  event: APIGatewayProxyEvent,
): Promise<{ refused: APIGatewayProxyResult } | { event: APIGatewayProxyEvent }> {
  if (event.httpMethod !== 'POST' || event.path !== OAUTH_ROUTES.registration) return { event };
  const limit = await deps.limiter.hit(
    `oauth-register:ip:${clientQuotaKey(event.requestContext.identity.sourceIp)}`,
    deps.registrationPolicy,
  );
  if (!limit.allowed) {
    return {
      refused: errorResponse(429, 'Too many client registrations from this address; try again later', {
        'Retry-After': String(limit.resetSeconds),
      }),
    };
  }
  let body: unknown;
  try {
    body = JSON.parse(event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString() : (event.body ?? ''));
  } catch {
    // oidc-provider answers a malformed body itself.
    return { event };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { event };
  const problem = registrationProblem(body as Record<string, unknown>);
  if (problem) return { refused: jsonResponse(400, { error: 'invalid_client_metadata', error_description: problem }) };
  const metadata = JSON.stringify({ token_endpoint_auth_method: 'none', ...body });
  // The body's length changes: serverless-http counts it again when no Content-Length is given.
  const withoutLength = <T>(headers: Record<string, T> | null) =>
    headers && Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-length'));
  return {
    event: {
      ...event,
      headers: withoutLength(event.headers) ?? {},
      multiValueHeaders: withoutLength(event.multiValueHeaders) ?? {},
      body: metadata,
      isBase64Encoded: false,
    },
  };
}

/** The largest metadata a client may register: its name as people read it, and every URI. */
const REGISTRATION_LIMITS = { name: 100, uri: 2048, redirectUris: 10 } as const;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function registrationProblem(metadata: Record<string, unknown>): string | null {
  const method = metadata.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    return 'only public clients may register: token_endpoint_auth_method must be none';
  }
  if (typeof metadata.client_name === 'string' && [...metadata.client_name].length > REGISTRATION_LIMITS.name) {
    return `client_name has more than ${REGISTRATION_LIMITS.name} characters`;
  }
  for (const [field, value] of Object.entries(metadata)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((entry) => typeof entry === 'string' && entry.length > REGISTRATION_LIMITS.uri)) {
      return `${field} holds a value of more than ${REGISTRATION_LIMITS.uri} characters`;
    }
    if (values.length > REGISTRATION_LIMITS.redirectUris) {
      return `${field} has more than ${REGISTRATION_LIMITS.redirectUris} values`;
    }
  }
  const redirects = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris : [];
  for (const uri of redirects) {
    if (typeof uri === 'string' && URL.canParse(uri)) {
      const url = new URL(uri);
      if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
        return `redirect URI ${uri}: http is allowed on loopback only (127.0.0.1, [::1], localhost); use https`;
      }
    }
  }
  return null;
}

/**
 * An authorization request's error (no PKCE S256, another response type, an unknown scope or
 * resource, any invalid parameter) for a client this browser's login has not approved is shown on
 * Gleaner's own page (the configuration's `renderError`), never redirected to the client's redirect
 * URI: a self-registered client's URI would otherwise be an open redirect, reached before anyone
 * signed in. oidc-provider emits `authorization.error` before it decides, and redirects only errors
 * that allow it (`allow_redirect`). Errors after the consent page (Deny: access_denied) come on the
 * resume route, once the user has seen the client and its address, and still go back to it.
 */
function keepErrorsOfUntrustedClients(ctx: KoaContextWithOIDC, error: errors.OIDCProviderError): void {
  if (ctx.oidc.route !== 'authorization') return;
  const clientId = ctx.oidc.client?.clientId;
  if (!clientId || !ctx.oidc.session?.grantIdFor(clientId)) error.allow_redirect = false;
}

/** oidc-provider (with Koa) and serverless-http, loaded with the first request rather than at init. */
async function buildServer(deps: OAuthDeps, issuer: string) {
  const [oidc, { default: serverlessHttp }, keys] = await Promise.all([
    import('oidc-provider'),
    import('serverless-http'),
    deps.keys(),
  ]);
  const provider = new oidc.default(issuer, configuration(deps, issuer, keys, oidc));
  // Behind API Gateway and CloudFront: trust X-Forwarded-Proto, so cookies may be Secure.
  provider.proxy = true;
  provider.on('server_error', (_ctx: unknown, error: Error) =>
    deps.logger.error('Authorization server error', { error }),
  );
  provider.on('authorization.error', keepErrorsOfUntrustedClients);
  const callback = provider.callback();
  const application = async (request: EventRequest, response: ServerResponse) => {
    // serverless-http does not await this: an error let out would be an unhandled rejection, which
    // ends a Lambda runtime (502) or a Node process. Each one gets a page instead.
    try {
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
    } catch (error) {
      if (!response.headersSent) send(response, interactionFailure(error, oidc.errors, deps.logger));
    }
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

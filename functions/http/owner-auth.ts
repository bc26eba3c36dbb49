import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { DynamoClients } from '../adapters/dynamo/client';
import { DynamoIdentityStore } from '../adapters/dynamo/identity-store';
import { DynamoOAuthAdapter } from '../adapters/dynamo/oauth-adapter';
import type { Principal, Scope } from '../core/identity/principal';
import { ALL_SCOPES } from '../core/identity/principal';
import { type ResourceName, resourceIdentifier, resourceMetadataUrl } from '../core/identity/resources';
import {
  csrfTokenMatches,
  hashSecret,
  type Session,
  sessionIdFromCookies,
  sessionLive,
} from '../core/identity/session';
import { bearerToken } from '../core/token/token';
import { TOKEN_PREFIX } from '../core/wire/token-format';
import type { Environment } from '../platform/env';
import { setting, settings } from '../platform/settings';
import { serviceBaseUrl } from './base-url';
import { errorResponse, headerValues } from './responses';

/**
 * The one place that turns a request to the owner's side into a Principal, or into the 401/403 to
 * answer: the web app's session cookie (state-changing requests must also carry the session's CSRF
 * token) or an OAuth access token issued for the per-user API (audience and scopes checked). A
 * personal access token is refused: the contract limits it to the save path.
 */

export interface OwnerAuthDeps {
  readonly sessions: { getSession(idHash: string): Promise<Session | null> };
  /** oidc-provider's stored access tokens (opaque: the token is the id). */
  readonly accessTokens: { find(id: string): Promise<Record<string, unknown> | undefined> };
  /** The service's public address (see serviceBaseUrl): the resource tokens must name, and whether cookies are Secure. */
  readonly publicBaseUrl: string | null;
  readonly trustCdnHeaders: boolean;
  readonly now: () => Date;
}

export interface OwnerAuthOptions {
  /** Scopes an OAuth token needs for this request (a session has them all). */
  readonly scopes?: readonly Scope[];
  /** The CSRF token a form sent in its body; otherwise the `X-CSRF-Token` header is read. */
  readonly csrfToken?: string | null;
}

export type OwnerAuthentication =
  | { readonly ok: true; readonly principal: Principal; readonly session: Session | null }
  | { readonly ok: false; readonly response: APIGatewayProxyResult };

export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * OwnerAuthDeps from a handler's environment, on the table: what a route of the owner's side passes
 * to `authenticateOwner`.
 */
export function ownerAuthDeps(env: Environment, doc: DynamoClients['doc']): OwnerAuthDeps {
  const tableName = setting(env, settings.tableName);
  return {
    sessions: new DynamoIdentityStore(doc, tableName),
    accessTokens: new DynamoOAuthAdapter('AccessToken', doc, tableName),
    publicBaseUrl: webBaseUrl(env),
    trustCdnHeaders: setting(env, settings.trustCdnHeaders),
    now: () => new Date(),
  };
}

/** The web app's configured address (WEB_BASE_URL, else PUBLIC_BASE_URL), or null to take it from the request. */
function webBaseUrl(env: Environment): string | null {
  return setting(env, settings.webBaseUrl) ?? setting(env, settings.publicBaseUrl) ?? null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const PAT_REFUSED_DETAIL =
  'Personal access tokens only save bookmarks (POST /api/v1/bookmarks/save). This API takes an OAuth access token or the signed-in web app.';

export async function authenticateOwner(
  deps: OwnerAuthDeps,
  event: APIGatewayProxyEvent,
  options: OwnerAuthOptions = {},
): Promise<OwnerAuthentication> {
  if (headerValues(event, 'Authorization').length > 0)
    return authenticateBearer(deps, event, 'ownerApi', options.scopes ?? []);
  const session = await sessionOf(deps, event);
  if (!session) {
    const metadata = resourceMetadataUrl(serviceBaseUrl(event, deps.publicBaseUrl, deps.trustCdnHeaders), 'ownerApi');
    return challenge(metadata)(401, 'Not authenticated: sign in, or send Authorization: Bearer <OAuth access token>');
  }
  if (!SAFE_METHODS.has(event.httpMethod)) {
    const submitted = options.csrfToken ?? headerValues(event, CSRF_HEADER)[0];
    if (!csrfTokenMatches(session, submitted)) {
      return {
        ok: false,
        response: errorResponse(403, 'Missing or invalid CSRF token: reload the page and try again'),
      };
    }
  }
  return { ok: true, session, principal: { userId: session.userId, via: 'session', scopes: new Set(ALL_SCOPES) } };
}

/** The live session a request's cookie names, or null (no cookie, unknown, expired or signed out). */
export async function sessionOf(deps: OwnerAuthDeps, event: APIGatewayProxyEvent): Promise<Session | null> {
  const secure = secureCookies(serviceBaseUrl(event, deps.publicBaseUrl, deps.trustCdnHeaders));
  const id = sessionIdFromCookies(headerValues(event, 'Cookie'), secure);
  if (!id) return null;
  const session = await deps.sessions.getSession(hashSecret(id));
  return session && sessionLive(session, deps.now()) ? session : null;
}

export function secureCookies(publicBaseUrl: string): boolean {
  return publicBaseUrl.startsWith('https:');
}

/**
 * An OAuth access token issued for `resource` (its audience), holding `required`: the only way into
 * the MCP server, and the per-user API's way for clients. Refusals carry the RFC 6750 challenge with
 * the resource's metadata address (RFC 9728), where a client finds the authorization server.
 */
export async function authenticateBearer(
  deps: OwnerAuthDeps,
  event: APIGatewayProxyEvent,
  resource: ResourceName,
  required: readonly Scope[],
): Promise<OwnerAuthentication> {
  const baseUrl = serviceBaseUrl(event, deps.publicBaseUrl, deps.trustCdnHeaders);
  const audience = resourceIdentifier(baseUrl, resource);
  const refuse = challenge(resourceMetadataUrl(baseUrl, resource));
  const authorization = headerValues(event, 'Authorization');
  if (authorization.length === 0)
    return refuse(401, `Not authenticated: send Authorization: Bearer <OAuth access token for ${audience}>`);
  const token = authorization.length === 1 ? bearerToken(authorization[0]) : null;
  if (token === null)
    return refuse(401, 'Send exactly one Authorization: Bearer <OAuth access token> header', 'invalid_request');
  if (token.startsWith(`${TOKEN_PREFIX}_`)) return refuse(401, PAT_REFUSED_DETAIL, 'invalid_token');
  const payload = token.length <= 200 ? await deps.accessTokens.find(token) : undefined;
  const now = deps.now().getTime() / 1000;
  if (!payload || typeof payload.accountId !== 'string' || (typeof payload.exp === 'number' && payload.exp <= now)) {
    return refuse(401, 'Invalid, expired or revoked access token', 'invalid_token');
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!audiences.includes(audience)) {
    return refuse(
      401,
      `This access token was issued for another resource; request one for ${audience}`,
      'invalid_token',
    );
  }
  const scopes = new Set(
    String(payload.scope ?? '')
      .split(' ')
      .filter(Boolean) as Scope[],
  );
  const missing = required.filter((scope) => !scopes.has(scope));
  if (missing.length) {
    return refuse(403, `This access token lacks the scope ${missing.join(' ')}`, 'insufficient_scope', missing);
  }
  return {
    ok: true,
    session: null,
    principal: { userId: payload.accountId, via: 'oauth', scopes, clientId: String(payload.clientId) },
  };
}

/** A refusal with its `WWW-Authenticate: Bearer` challenge, naming the resource's metadata address (RFC 9728). */
function challenge(resourceMetadata: string) {
  return (
    status: 401 | 403,
    detail: string,
    error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope',
    scopes: readonly string[] = [],
  ): OwnerAuthentication => {
    const parameters = [
      'realm="gleaner"',
      ...(error ? [`error="${error}"`] : []),
      ...(scopes.length ? [`scope="${scopes.join(' ')}"`] : []),
      `resource_metadata="${resourceMetadata}"`,
    ];
    return {
      ok: false,
      response: errorResponse(status, detail, { 'WWW-Authenticate': `Bearer ${parameters.join(', ')}` }),
    };
  };
}

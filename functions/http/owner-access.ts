import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { userRateLimitSubject } from '../adapters/dynamo/account-deletion';
import { clientQuotaKey } from '../core/contract/rate-limit';
import type { Principal } from '../core/identity/principal';
import type { Session } from '../core/identity/session';
import { type RouteDefinition, routes } from '../platform/routes';
import type { OwnerAuthentication, OwnerAuthOptions } from './owner-auth';
import { errorResponse } from './responses';

/**
 * Who may call an owner's route, by its rule in the route table (`route.owner`): the one place the
 * per-user API and the signed-in pages decide it. `authenticate` (owner-auth.ts's authenticateOwner,
 * bound to its stores) turns the request into a principal, checking the route's scope on an OAuth
 * token and the CSRF token of a session's write; session-only routes then refuse OAuth tokens.
 */

export type Authenticate = (event: APIGatewayProxyEvent, options: OwnerAuthOptions) => Promise<OwnerAuthentication>;

export type OwnerAccess =
  | { readonly ok: true; readonly principal: Principal; readonly session: Session | null }
  | { readonly ok: false; readonly response: APIGatewayProxyResult };

export async function ownerAccess(
  route: RouteDefinition,
  event: APIGatewayProxyEvent,
  authenticate: Authenticate,
  csrfToken?: string | null,
): Promise<OwnerAccess> {
  const rule = route.owner;
  if (!rule) throw new Error(`Route ${route.id} is not an owner's route`);
  const found = await authenticate(event, { scopes: rule.scope ? [rule.scope] : [], csrfToken });
  if (found.ok && rule.session && found.principal.via !== 'session')
    return {
      ok: false,
      response: errorResponse(403, {
        code: 'session_required',
        message: 'Only the signed-in web app may do this, not an OAuth client.',
        hint: 'Sign in to Gleaner in a browser.',
      }),
    };
  return found;
}

/** The owner's route the request came in on (HEAD is its GET): the route picks the operation of a shared function. */
export function matchedRoute(
  event: APIGatewayProxyEvent,
  table: readonly RouteDefinition[] = routes,
): RouteDefinition | undefined {
  const method = event.httpMethod === 'HEAD' ? 'GET' : event.httpMethod;
  return table.find((route) => route.path === event.resource && route.method === method && route.owner);
}

/** Whose quota a request of an owner's route counts against: a signed-in caller's own, a refused one's address's. */
export function ownerQuotaSubject(access: OwnerAccess, event: APIGatewayProxyEvent): string {
  return access.ok
    ? userRateLimitSubject(access.principal.userId)
    : `ip:${clientQuotaKey(event.requestContext.identity.sourceIp)}`;
}

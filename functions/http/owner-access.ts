import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { userRateLimitSubject } from '../adapters/dynamo/account-deletion';
import { clientQuotaKey } from '../core/contract/rate-limit';
import type { Principal } from '../core/identity/principal';
import type { Session } from '../core/identity/session';
import type { RouteDefinition } from '../platform/routes';
import type { OwnerAuthentication, OwnerAuthOptions } from './owner-auth';
import { rateLimited } from './rate-limited';
import { errorResponse } from './responses';
import type { RouteCall } from './route-wrapper';
import { refusedVisit } from './web';

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

async function ownerAccess(
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

/** Whose quota a request of an owner's route counts against: a signed-in caller's own, a refused one's address's. */
function ownerQuotaSubject(access: OwnerAccess, event: APIGatewayProxyEvent): string {
  return access.ok ? userRateLimitSubject(access.principal.userId) : addressQuotaSubject(event);
}

/** The quota of the address a request came from: callers without a principal count against it. */
export function addressQuotaSubject(event: APIGatewayProxyEvent): string {
  return `ip:${clientQuotaKey(event.requestContext.identity.sourceIp)}`;
}

/**
 * Admits a request to an owner's route (`ownerAccess`) and counts it against its quota: the
 * principal's own, or for a refused caller its address's. A refusal is the answer to give: 429 when
 * over the quota, else the refusal of `ownerAccess`, which a page (`page`) shows as a visit's refusal
 * (sign in first, or a page saying why not) rather than as JSON.
 */
export async function admitOwner(
  { route, event, request }: RouteCall,
  authenticate: Authenticate,
  options: { readonly page: boolean; readonly csrfToken?: string | null },
): Promise<OwnerAccess> {
  const access = await ownerAccess(route, event, authenticate, options.csrfToken);
  const limit = await request.rateLimit(ownerQuotaSubject(access, event));
  if (!limit.allowed) return { ok: false, response: rateLimited(limit) };
  if (!access.ok && options.page) return { ok: false, response: refusedVisit(event, access.response) };
  return access;
}

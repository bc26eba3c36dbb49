import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Principal } from '../core/identity/principal';
import { TOKEN_PREFIX } from '../core/token/format';
import { bearerToken } from '../core/token/token';
import type { RouteDefinition } from '../platform/routes';
import { errorResponse, headerValues } from './responses';

/**
 * Who may call an owner's route (`route.owner` in the route table): the one place the per-user API
 * and the signed-in pages decide it. `authenticate` turns the request into a signed-in principal
 * (a browser session or an OAuth access token for this resource) or says why not.
 */

export type Authentication = Principal | { readonly refused: 401 | 403; readonly detail: string };

export type Authenticate = (event: APIGatewayProxyEvent) => Promise<Authentication>;

/** What a refused request gets: the status and the contract's `detail`, and the bearer challenge on a 401. */
export type AccessRefusal = {
  readonly status: 401 | 403;
  readonly detail: string | { code: string; message: string; hint?: string };
};

export const PAT_REFUSED =
  'Personal access tokens only save bookmarks (POST /api/v1/bookmarks/save); sign in, or use an OAuth access token, for /api/v2/me.';

/** The principal a route admits, or why it refuses the request. */
export async function ownerAccess(
  route: RouteDefinition,
  event: APIGatewayProxyEvent,
  authenticate: Authenticate,
): Promise<Principal | AccessRefusal> {
  const rule = route.owner;
  if (!rule) throw new Error(`Route ${route.id} is not an owner's route`);
  // The contract limits personal access tokens to the save path: named as such, never looked up here.
  if (headerValues(event, 'Authorization').some((value) => bearerToken(value)?.startsWith(`${TOKEN_PREFIX}_`)))
    return { status: 401, detail: PAT_REFUSED };
  const found = await authenticate(event);
  if ('refused' in found) return { status: found.refused, detail: found.detail };
  if (rule.session && found.via !== 'session')
    return {
      status: 403,
      detail: {
        code: 'session_required',
        message: 'This operation is only available to the signed-in web app, not to OAuth clients.',
      },
    };
  if (rule.scope && !found.scopes.has(rule.scope))
    return {
      status: 403,
      detail: {
        code: 'insufficient_scope',
        message: `This operation needs the ${rule.scope} scope.`,
        hint: 'Ask for it when the app is authorised again.',
      },
    };
  return found;
}

export function isRefusal(access: Principal | AccessRefusal): access is AccessRefusal {
  return 'status' in access;
}

/** A refusal as the API answers it: 401 with a bearer challenge, or 403 (RFC 6750 names the missing scope). */
export function refusalResponse(route: RouteDefinition, refusal: AccessRefusal): APIGatewayProxyResult {
  const challenge =
    refusal.status === 401
      ? 'Bearer realm="gleaner"'
      : typeof refusal.detail !== 'string' && refusal.detail.code === 'insufficient_scope'
        ? `Bearer realm="gleaner", error="insufficient_scope", scope="${route.owner?.scope}"`
        : null;
  return errorResponse(refusal.status, refusal.detail, challenge ? { 'WWW-Authenticate': challenge } : {});
}

import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type RouteDefinition, routes } from '../platform/routes';
import { httpRoute, type RouteOptions, type RouteRequest } from './middleware';
import { errorResponse } from './responses';
import { crossSitePost } from './web';

/**
 * The one route wrapper of the functions that serve several routes (the per-user API, the signed-in
 * pages, search, the account pages): the route table says which routes a handler module serves, and
 * each request runs the operation of its route's id. A module must have an operation for each of its
 * routes and none for another's, checked when the handler is built.
 */

/** One request to a route, as its operation gets it. */
export interface RouteCall {
  readonly event: APIGatewayProxyEvent;
  readonly request: RouteRequest;
  readonly route: RouteDefinition;
}

export type RouteOperation = (call: RouteCall) => Promise<APIGatewayProxyResult>;

export interface RouteWrapperOptions extends RouteOptions {
  /** The handler module (`functions/…/handler.ts`) whose routes of the table this serves. */
  readonly entry: string;
  /**
   * The site's origin, for pages with forms: a POST from another site is then refused (403) before
   * any operation runs (see crossSitePost).
   */
  readonly siteOrigin?: (event: APIGatewayProxyEvent) => string;
}

export function routeWrapper(operations: Readonly<Record<string, RouteOperation>>, options: RouteWrapperOptions) {
  const served = routes.filter((route) => route.entry === options.entry);
  const missing = served.filter((route) => !Object.hasOwn(operations, route.id)).map((route) => route.id);
  const unknown = Object.keys(operations).filter((id) => !served.some((route) => route.id === id));
  if (missing.length || unknown.length)
    throw new Error(
      `${options.entry}: no operation for ${missing.join(', ') || 'none'}; not its routes: ${unknown.join(', ') || 'none'}`,
    );
  return httpRoute(async (event, request) => {
    const refused = options.siteOrigin ? crossSitePost(event, options.siteOrigin(event)) : null;
    if (refused) return refused;
    const route = routeOf(served, event);
    // API Gateway sends a function only its own routes; anything else is no route here.
    if (!route) return errorResponse(404, 'Not Found');
    return operations[route.id]!({ event, request, route });
  }, options);
}

/** The route of `table` the request came in on (HEAD is its GET). */
function routeOf(table: readonly RouteDefinition[], event: APIGatewayProxyEvent): RouteDefinition | undefined {
  const method = event.httpMethod === 'HEAD' ? 'GET' : event.httpMethod;
  return table.find((route) => route.path === event.resource && route.method === method);
}

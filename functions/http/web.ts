import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { pageSecurityHeaders, renderPage } from '../core/web/layout';
import { notFoundPage, type PageContext } from '../core/web/library-pages';
import { webPaths } from '../core/web/paths';
import { type Failure, failureResponse } from './failures';
import { errorResponse, header } from './responses';

/** Answers and requests of the server-rendered web app: HTML pages, redirects after a POST, form bodies. */

export function htmlResponse(
  statusCode: number,
  html: string,
  headers: Record<string, string> = {},
  options: { formAction?: boolean; connect?: readonly string[] } = {},
): APIGatewayProxyResult {
  return { statusCode, headers: { ...pageSecurityHeaders(options), ...headers }, body: html };
}

/** 303 See Other: after a form's POST, the browser GETs `location`. */
export function redirectResponse(location: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode: 303, headers: { Location: location, 'Cache-Control': 'no-store', ...headers }, body: '' };
}

/** The fields of an `application/x-www-form-urlencoded` body (empty for any other body). */
export function formFields(event: APIGatewayProxyEvent): URLSearchParams {
  const contentType = header(event.headers, 'Content-Type') ?? '';
  if (!event.body || !/^application\/x-www-form-urlencoded\b/i.test(contentType)) return new URLSearchParams();
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  return new URLSearchParams(text);
}

/** A JSON body as an object, or null when it is not one. */
export function jsonBody(event: APIGatewayProxyEvent): Record<string, unknown> | null {
  if (!event.body) return null;
  try {
    const value: unknown = JSON.parse(
      event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body,
    );
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function queryParameter(event: APIGatewayProxyEvent, name: string): string | null {
  return event.queryStringParameters?.[name] ?? null;
}

/** To the sign-in page, coming back to this page after (to the Library after a form's POST). */
export function signInFirst(event: APIGatewayProxyEvent): APIGatewayProxyResult {
  const back = event.httpMethod === 'GET' ? event.path : webPaths.library;
  return redirectResponse(`${webPaths.signIn}?next=${encodeURIComponent(back)}`);
}

/** A signed-in page's answer to a visit `ownerAccess` refused: sign in first, or a page saying why not. */
export function refusedVisit(event: APIGatewayProxyEvent, refusal: APIGatewayProxyResult): APIGatewayProxyResult {
  if (refusal.statusCode === 401) return signInFirst(event);
  const detail = (JSON.parse(refusal.body) as { detail: string | { message: string } }).detail;
  const error = typeof detail === 'string' ? detail : detail.message;
  return htmlResponse(403, renderPage({ title: 'Refused', error, body: '<h1>Refused</h1>' }));
}

/**
 * A form post from another site (login CSRF on Sign in or Sign up, or any form): refused on the
 * browser's own word, Fetch Metadata (`Sec-Fetch-Site` other than `same-origin`, or `none` for what the
 * person started), or, from a browser without it, an `Origin` other than the site's. A request with
 * neither (curl, a script) is no browser's cross-site post: it passes, to meet the CSRF token where a
 * form has one. Null when the request may go on.
 */
export function crossSitePost(event: APIGatewayProxyEvent, siteOrigin: string): APIGatewayProxyResult | null {
  if (event.httpMethod !== 'POST') return null;
  const site = header(event.headers, 'Sec-Fetch-Site');
  const origin = header(event.headers, 'Origin');
  const crossSite =
    site !== undefined ? site !== 'same-origin' && site !== 'none' : origin !== undefined && origin !== siteOrigin;
  return crossSite ? errorResponse(403, 'A form from another site cannot post here: use the form on this site') : null;
}

/**
 * A failure (failures.ts) as a signed-in page shows it: nothing of the caller's by that id is the
 * Not found page; a refused input or a clash is a "Not done" page (422) saying why, with a way back
 * (the Library after a GET, the page the form was posted from after a POST).
 */
export function failurePage(
  failure: Failure,
  event: APIGatewayProxyEvent,
  context: PageContext,
): APIGatewayProxyResult {
  switch (failure.kind) {
    case 'not-found':
      return htmlResponse(404, notFoundPage(context));
    case 'unavailable':
      return failureResponse(failure);
    default: {
      const back = event.httpMethod === 'GET' ? webPaths.library : refererPath(event);
      return htmlResponse(
        failure.kind === 'note-limit' ? 402 : 422,
        renderPage({
          title: 'Not done',
          signedIn: context.signedIn,
          error: failure.message,
          body: `<h1>Not done</h1><p><a href="${back}">Go back</a></p>`,
        }),
      );
    }
  }
}

/** The page a form was posted from, when it is one of ours (the Referer's path); the Library otherwise. */
function refererPath(event: APIGatewayProxyEvent): string {
  try {
    const referer = new URL(header(event.headers, 'Referer') ?? '');
    return /^\/[\w/-]*$/.test(referer.pathname) ? referer.pathname : webPaths.library;
  } catch {
    return webPaths.library;
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type Provider from 'oidc-provider';
import type { errors as ProviderErrors } from 'oidc-provider';
import { csrfTokenMatches } from '../core/identity/session';
import { CSRF_FIELD } from '../core/web/layout';
import { authorizationErrorPage, consentPage } from '../core/web/oauth-pages';
import { webPaths } from '../core/web/paths';
import { type OwnerAuthDeps, sessionOf } from '../http/owner-auth';
import { errorResponse } from '../http/responses';
import { formFields, htmlResponse } from '../http/web';

/** The interaction pages' address: /oauth/interaction/<uid>, and its Allow (confirm) and Deny (abort) forms. */
export const INTERACTION_PATH = /^\/oauth\/interaction\/([\w-]+)(?:\/(confirm|abort))?$/;

/**
 * The interaction pages: a login prompt finishes with the web app's session (or sends the browser to
 * Sign in and back); a consent prompt shows what the client asks for, and the Allow/Deny forms (with
 * the session's CSRF token) finish it.
 */
export async function interact(
  deps: OwnerAuthDeps,
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

export function send(response: ServerResponse, result: APIGatewayProxyResult): void {
  response.writeHead(result.statusCode, result.headers as Record<string, string>);
  response.end(result.body);
}

/**
 * An interaction that cannot go on, as a page: an expired or unknown one (Back or a reload after
 * Allow, a link kept too long) says to start again (400); another refusal says why; anything else is
 * logged and answered 500.
 */
export function interactionFailure(
  error: unknown,
  errors: typeof ProviderErrors,
  logger: Logger,
): APIGatewayProxyResult {
  if (error instanceof errors.SessionNotFound) return htmlResponse(400, authorizationErrorPage({ expired: true }));
  if (error instanceof errors.OIDCProviderError && error.statusCode < 500) {
    return htmlResponse(
      error.statusCode,
      authorizationErrorPage({ expired: false, reason: error.error_description ?? error.message }),
    );
  }
  logger.error('Interaction failed', { error });
  return htmlResponse(
    500,
    authorizationErrorPage({ expired: false, reason: 'Something went wrong on our side; try again in a moment.' }),
  );
}

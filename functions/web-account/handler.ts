import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DynamoAccountStore } from '../adapters/dynamo/account-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoIdentityStore } from '../adapters/dynamo/identity-store';
import { DynamoOAuthGrants } from '../adapters/dynamo/oauth-adapter';
import { DynamoRateLimiter } from '../adapters/dynamo/rate-limiter';
import { createMailer } from '../adapters/mail/mailer';
import type { AccountFlowPorts, IdentityStore, Throttled } from '../core/identity/account-flows';
import * as flows from '../core/identity/account-flows';
import { connectedApps, disconnectApp } from '../core/identity/connected-apps';
import * as passkeyFlows from '../core/identity/passkey-flows';
import { resourceIdentifier } from '../core/identity/resources';
import { clearedSessionCookie, type Session, sessionCookie } from '../core/identity/session';
import {
  accountPage,
  checkEmailPage,
  forgotPasswordPage,
  linkExpiredPage,
  setPasswordPage,
  signInPage,
  signUpPage,
  welcomePage,
} from '../core/web/account-pages';
import { CSRF_FIELD } from '../core/web/layout';
import { connectedAppsPage } from '../core/web/oauth-pages';
import { safeNextPath, webPaths } from '../core/web/paths';
import { serviceBaseUrl } from '../http/base-url';
import { authenticateOwner, type OwnerAuthDeps, ownerAuthDeps, secureCookies, sessionOf } from '../http/owner-auth';
import { errorResponse, jsonResponse } from '../http/responses';
import { type RouteOperation, routeWrapper } from '../http/route-wrapper';
import { formFields, htmlResponse, jsonBody, queryParameter, redirectResponse } from '../http/web';
import { deferred, type Environment } from '../platform/env';
import { createLogger } from '../platform/observability';
import { setting, settings } from '../platform/settings';
import { createTracing, type Tracing } from '../platform/tracing';

/**
 * The web app's account pages: `/` for visitors, sign-up, sign-in (password or passkey), sign-out,
 * email verification, password reset and invitations (one-time links), and the Account page (email,
 * password, display name, passkeys) with Connected apps. Thin: each route id's action reads its form,
 * runs a use case of core/identity (account-flows.ts, passkey-flows.ts, connected-apps.ts) on its
 * ports, and answers with a page, a redirect or the passkey script's JSON. One module serves these
 * routes of the route table, an action a route id.
 */

export interface WebAccountDeps extends OwnerAuthDeps, AccountFlowPorts {
  readonly identities: IdentityStore;
  readonly logger: Logger;
  readonly tracing?: Tracing;
}

type Action = (deps: WebAccountDeps, event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** The action of each route id (the route wrapper checks that every route of this module has one). */
const actions: Record<string, Action> = {
  WebHome: home,
  WebSignUpPage: async (_deps, event) => htmlResponse(200, sentLink(event) ? checkEmailPage('verify') : signUpPage()),
  WebSignUp: signUp,
  WebSignInPage: async (_deps, event) =>
    htmlResponse(200, signInPage({ next: queryParameter(event, 'next'), notice: signInNotice(event) })),
  WebSignIn: signIn,
  WebSignOut: signOut,
  WebVerifyEmail: verifyEmail,
  WebForgotPasswordPage: async (_deps, event) =>
    htmlResponse(200, sentLink(event) ? checkEmailPage('reset') : forgotPasswordPage()),
  WebForgotPassword: forgotPassword,
  WebSetPasswordPage: showSetPassword,
  WebSetPassword: setPassword,
  WebAccountPage: (deps, event) => showAccount(deps, event),
  WebChangeEmail: changeEmail,
  WebChangePassword: changePassword,
  WebChangeDisplayName: changeDisplayName,
  WebPasskeyRegisterOptions: passkeyRegisterOptions,
  WebPasskeyRegister: passkeyRegister,
  WebPasskeyDelete: passkeyDelete,
  WebPasskeySignInOptions: passkeySignInOptions,
  WebPasskeySignIn: passkeySignIn,
  WebConnectedAppsPage: showConnectedApps,
  WebConnectedAppRevoke: revokeConnectedApp,
};

export function makeHandler(deps: WebAccountDeps) {
  return routeWrapper(
    Object.fromEntries(
      Object.entries(actions).map(([id, action]): [string, RouteOperation] => [id, ({ event }) => action(deps, event)]),
    ),
    {
      logger: deps.logger,
      tracing: deps.tracing,
      corsOrigins: [],
      entry: 'functions/web-account/handler.ts',
      siteOrigin: (event) => new URL(baseUrlOf(deps, event)).origin,
    },
  );
}

const baseUrlOf = (deps: WebAccountDeps, event: APIGatewayProxyEvent) =>
  serviceBaseUrl(event, deps.publicBaseUrl, deps.trustCdnHeaders);
const origin = (deps: WebAccountDeps, event: APIGatewayProxyEvent) => ({
  clientAddress: event.requestContext.identity.sourceIp,
  baseUrl: baseUrlOf(deps, event),
});

async function home(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  return (await sessionOf(deps, event)) ? redirectResponse(webPaths.library) : htmlResponse(200, welcomePage());
}

function signInNotice(event: APIGatewayProxyEvent): string | null {
  const notices: Record<string, string> = {
    verified: 'Your address is confirmed. Sign in.',
    'password-set': 'Your password is set. Sign in.',
    'signed-out': 'You are signed out.',
  };
  return notices[queryParameter(event, 'notice') ?? ''] ?? null;
}

async function signUp(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const fields = formFields(event);
  const entered = { email: fields.get('email') ?? '', displayName: fields.get('display-name') ?? '' };
  const outcome = await flows.signUp(deps, { ...entered, password: fields.get('password') ?? '' }, origin(deps, event));
  if (outcome.kind === 'refused') return htmlResponse(422, signUpPage({ error: outcome.problem, ...entered }));
  if (outcome.kind === 'throttled') return tooManyAttempts(signUpPage, outcome);
  return redirectResponse(`${webPaths.signUp}?${SENT_NOTICE}`);
}

/**
 * Sign-up and the reset request answer with a redirect to their own page saying "Check your email"
 * (post/redirect/get): a reload shows the page again and sends nothing. The same for every address.
 */
const SENT_NOTICE = 'notice=check-email';

function sentLink(event: APIGatewayProxyEvent): boolean {
  return queryParameter(event, 'notice') === 'check-email';
}

function tooManyAttempts(page: (options: { error: string }) => string, { retryAfterSeconds }: Throttled) {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return htmlResponse(
    429,
    page({ error: `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` }),
    {
      'Retry-After': String(retryAfterSeconds),
    },
  );
}

async function signIn(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const fields = formFields(event);
  const typed = fields.get('email') ?? '';
  const next = fields.get('next');
  const outcome = await flows.signIn(
    deps,
    { email: typed, password: fields.get('password') ?? '' },
    origin(deps, event),
    () => sessionOf(deps, event),
  );
  switch (outcome.kind) {
    case 'throttled':
      return tooManyAttempts((options) => signInPage({ ...options, email: typed, next }), outcome);
    case 'refused':
      return htmlResponse(
        401,
        signInPage({ error: 'That email and password do not match an account.', email: typed, next }),
      );
    case 'unverified':
      return htmlResponse(
        403,
        signInPage({
          error: 'Confirm your email address first: we just sent you a new link.',
          email: typed,
          next,
        }),
      );
    case 'signed-in':
      return redirectResponse(safeNextPath(next), sessionCookieHeader(deps, event, outcome.cookieValue));
  }
}

function sessionCookieHeader(deps: WebAccountDeps, event: APIGatewayProxyEvent, cookieValue: string) {
  return { 'Set-Cookie': sessionCookie(cookieValue, secureCookies(baseUrlOf(deps, event))) };
}

async function signOut(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const fields = formFields(event);
  const auth = await authenticateOwner(deps, event, { csrfToken: fields.get(CSRF_FIELD) });
  if (!auth.ok) return auth.response.statusCode === 401 ? redirectResponse(webPaths.signIn) : auth.response;
  await flows.signOut(deps, auth.session!, fields.get('everywhere') === 'true');
  return redirectResponse(`${webPaths.signIn}?notice=signed-out`, {
    'Set-Cookie': clearedSessionCookie(secureCookies(baseUrlOf(deps, event))),
  });
}

async function verifyEmail(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  if (!(await flows.verifyEmail(deps, queryParameter(event, 'token'))))
    return htmlResponse(410, linkExpiredPage('confirmation'));
  return redirectResponse(`${webPaths.signIn}?notice=verified`);
}

async function forgotPassword(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const outcome = await flows.forgotPassword(deps, formFields(event).get('email') ?? '', origin(deps, event));
  if (outcome.kind === 'refused') return htmlResponse(422, forgotPasswordPage({ error: outcome.problem }));
  if (outcome.kind === 'throttled') return tooManyAttempts(forgotPasswordPage, outcome);
  return redirectResponse(`${webPaths.forgotPassword}?${SENT_NOTICE}`);
}

async function showSetPassword(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const token = queryParameter(event, 'token');
  const link = await flows.passwordLink(deps, token);
  if (!link) return htmlResponse(410, linkExpiredPage('password'));
  return htmlResponse(200, setPasswordPage({ token: token!, email: link.email, invited: link.purpose === 'invite' }));
}

async function setPassword(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const fields = formFields(event);
  const token = fields.get('token');
  const outcome = await flows.setPasswordWithLink(deps, token, fields.get('password') ?? '');
  if (outcome.kind === 'expired') return htmlResponse(410, linkExpiredPage('password'));
  if (outcome.kind === 'refused') {
    const { link, problem } = outcome;
    return htmlResponse(
      422,
      setPasswordPage({ token: token!, email: link.email, invited: link.purpose === 'invite', error: problem }),
    );
  }
  return redirectResponse(`${webPaths.signIn}?notice=password-set`);
}

/** The signed-in session of a page request, or the redirect to sign in and come back. */
async function pageSession(
  deps: WebAccountDeps,
  event: APIGatewayProxyEvent,
): Promise<{ session: Session } | { response: APIGatewayProxyResult }> {
  const session = await sessionOf(deps, event);
  if (session) return { session };
  return { response: redirectResponse(`${webPaths.signIn}?next=${encodeURIComponent(event.path)}`) };
}

async function showAccount(
  deps: WebAccountDeps,
  event: APIGatewayProxyEvent,
  messages: { notice?: string; error?: string; status?: number } = {},
): Promise<APIGatewayProxyResult> {
  const signedIn = await pageSession(deps, event);
  if ('response' in signedIn) return signedIn.response;
  const { session } = signedIn;
  const overview = await flows.accountOverview(deps, session.userId);
  const notices: Record<string, string> = {
    'email-changed': 'Your email address is changed. Open the link we sent to the new address to confirm it.',
    'password-changed': 'Your password is changed. Other browsers are signed out.',
    'passkey-removed': 'The passkey is removed.',
    'name-changed': 'Your display name is saved.',
  };
  return htmlResponse(
    messages.status ?? 200,
    accountPage(
      { ...overview, csrfToken: session.csrfToken },
      { notice: messages.notice ?? notices[queryParameter(event, 'notice') ?? ''] ?? null, error: messages.error },
    ),
  );
}

/** A form post of the Account page: the session, with its CSRF token checked. */
async function accountForm(
  deps: WebAccountDeps,
  event: APIGatewayProxyEvent,
): Promise<{ response: APIGatewayProxyResult } | { fields: URLSearchParams; session: Session }> {
  const fields = formFields(event);
  const auth = await authenticateOwner(deps, event, { csrfToken: fields.get(CSRF_FIELD) });
  if (!auth.ok)
    return { response: auth.response.statusCode === 401 ? redirectResponse(webPaths.signIn) : auth.response };
  return { fields, session: auth.session! };
}

/** An Account form's outcome: back to the page with its notice, or the page again saying what was refused. */
function accountAnswer(
  deps: WebAccountDeps,
  event: APIGatewayProxyEvent,
  outcome: { kind: 'changed' } | flows.AccountRefusal,
  notice: string,
): Promise<APIGatewayProxyResult> | APIGatewayProxyResult {
  if (outcome.kind === 'refused') return showAccount(deps, event, { error: outcome.problem, status: outcome.status });
  return redirectResponse(`${webPaths.account}?notice=${notice}`);
}

async function changeEmail(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  const outcome = await flows.changeEmail(
    deps,
    form.session.userId,
    { email: form.fields.get('email') ?? '', currentPassword: form.fields.get('current-password') ?? '' },
    baseUrlOf(deps, event),
  );
  return accountAnswer(deps, event, outcome, 'email-changed');
}

async function changePassword(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  const outcome = await flows.changePassword(deps, form.session, {
    currentPassword: form.fields.get('password-current') ?? '',
    newPassword: form.fields.get('new-password') ?? '',
  });
  return accountAnswer(deps, event, outcome, 'password-changed');
}

async function changeDisplayName(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  const outcome = await flows.changeDisplayName(deps, form.session.userId, form.fields.get('display-name') ?? '');
  return accountAnswer(deps, event, outcome, 'name-changed');
}

/** The JSON endpoints the passkey script calls: session and CSRF header required (registration). */
async function passkeyRegisterOptions(
  deps: WebAccountDeps,
  event: APIGatewayProxyEvent,
): Promise<APIGatewayProxyResult> {
  const auth = await authenticateOwner(deps, event);
  if (!auth.ok) return auth.response;
  const options = await passkeyFlows.passkeyRegistrationOptions(deps, auth.principal.userId, baseUrlOf(deps, event));
  return jsonResponse(200, options, { 'Cache-Control': 'no-store' });
}

async function passkeyRegister(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const auth = await authenticateOwner(deps, event);
  if (!auth.ok) return auth.response;
  const body = jsonBody(event);
  const outcome = await passkeyFlows.registerPasskey(
    deps,
    auth.principal.userId,
    { response: body?.response as RegistrationResponseJSON | undefined, label: body?.label },
    baseUrlOf(deps, event),
  );
  if (outcome.kind === 'expired')
    return errorResponse(400, 'The passkey request expired or was already used; try again');
  if (outcome.kind === 'unverified') return errorResponse(400, 'The authenticator’s answer did not verify');
  const { passkey } = outcome;
  return jsonResponse(201, { credential_id: passkey.credentialId, label: passkey.label });
}

async function passkeyDelete(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  await passkeyFlows.removePasskey(deps, form.session.userId, form.fields.get('credential'));
  return redirectResponse(`${webPaths.account}?notice=passkey-removed`);
}

async function passkeySignInOptions(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const options = await passkeyFlows.passkeySignInOptions(deps, baseUrlOf(deps, event));
  return jsonResponse(200, options, { 'Cache-Control': 'no-store' });
}

async function passkeySignIn(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const body = jsonBody(event);
  const outcome = await passkeyFlows.signInWithPasskey(
    deps,
    body?.response as AuthenticationResponseJSON | undefined,
    baseUrlOf(deps, event),
    () => sessionOf(deps, event),
  );
  if (outcome.kind === 'refused')
    return errorResponse(401, 'That passkey did not sign you in; try again or use your password');
  // The script follows `location` itself: a fetch cannot be redirected into a page.
  return jsonResponse(
    200,
    { location: safeNextPath(String(body?.next ?? '')) },
    sessionCookieHeader(deps, event, outcome.cookieValue),
  );
}

async function showConnectedApps(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const signedIn = await pageSession(deps, event);
  if ('response' in signedIn) return signedIn.response;
  const { session } = signedIn;
  const apps = await connectedApps(deps, session.userId);
  const notice = queryParameter(event, 'notice') === 'revoked' ? 'The app is disconnected.' : null;
  const mcpAddress = resourceIdentifier(baseUrlOf(deps, event), 'mcp');
  return htmlResponse(200, connectedAppsPage(apps, session.csrfToken, mcpAddress, notice));
}

async function revokeConnectedApp(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  if (!(await disconnectApp(deps, form.session.userId, form.fields.get('grant'))))
    return errorResponse(404, 'No such connected app');
  return redirectResponse(`${webPaths.connectedApps}?notice=revoked`);
}

export function createHandler(env: Environment) {
  const logger = createLogger(env);
  const tracing = createTracing();
  const { doc, tableName } = tableFromEnv(env, tracing.instrument);
  return makeHandler({
    ...ownerAuthDeps(env, doc),
    identities: new DynamoIdentityStore(doc, tableName),
    accounts: new DynamoAccountStore(doc, tableName),
    grants: new DynamoOAuthGrants(doc, tableName),
    limiter: new DynamoRateLimiter(doc, tableName),
    accountPolicy: setting(env, settings.signInAccountLimit),
    addressPolicy: setting(env, settings.signInAddressLimit),
    mailer: createMailer(env, { instrument: tracing.instrument }),
    logger,
    tracing,
    newId: randomUUID,
  });
}

export const handler = deferred(() => createHandler(process.env));

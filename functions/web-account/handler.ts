import { randomUUID } from 'node:crypto';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DynamoAccountStore } from '../adapters/dynamo/account-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoIdentityStore, EmailTakenError } from '../adapters/dynamo/identity-store';
import { DynamoOAuthGrants } from '../adapters/dynamo/oauth-adapter';
import { DynamoRateLimiter } from '../adapters/dynamo/rate-limiter';
import { createMailer } from '../adapters/mail/mailer';
import type { RateLimiter, RateLimitPolicy } from '../core/contract/rate-limit';
import { normalizeEmail } from '../core/identity/email';
import {
  type Login,
  type OneTimePurpose,
  oneTimeLinkLive,
  WEBAUTHN_CHALLENGE_SECONDS,
} from '../core/identity/identity';
import { NO_ACCOUNT, requestPasswordReset, sendOneTimeLink } from '../core/identity/links';
import { alreadyRegisteredMail, type Mailer } from '../core/identity/mail';
import { hashPassword, passwordProblem, verifyPassword } from '../core/identity/password';
import { resourceIdentifier } from '../core/identity/resources';
import { clearedSessionCookie, hashSecret, newSession, type Session, sessionCookie } from '../core/identity/session';
import { checkSignIn, throttle } from '../core/identity/sign-in';
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
import { displayNameOf, newUser } from '../core/workspace/accounts';
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
 * password, passkeys). One module serves these routes of the route table, an action a route id.
 */

export interface WebAccountDeps extends OwnerAuthDeps {
  readonly identities: DynamoIdentityStore;
  readonly accounts: Pick<DynamoAccountStore, 'getUser' | 'setDisplayName' | 'articleUsage'>;
  readonly grants: DynamoOAuthGrants;
  readonly limiter: RateLimiter;
  readonly accountPolicy: RateLimitPolicy;
  readonly addressPolicy: RateLimitPolicy;
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly tracing?: Tracing;
  readonly newId: () => string;
}

/** @simplewebauthn/server (and its ASN.1 libraries) only for the passkey routes, loaded on first use. */
const webauthn = () => import('../core/identity/passkeys');

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
const clientAddress = (event: APIGatewayProxyEvent) => event.requestContext.identity.sourceIp;

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
  const email = normalizeEmail(fields.get('email') ?? '');
  const password = fields.get('password') ?? '';
  const displayName = displayNameOf(fields.get('display-name') ?? '');
  const problem = !email
    ? 'Enter an email address like name@example.com.'
    : displayName.ok
      ? passwordProblem(password)
      : displayName.problem;
  if (problem || !displayName.ok) {
    const entered = { email: fields.get('email') ?? '', displayName: fields.get('display-name') ?? '' };
    return htmlResponse(422, signUpPage({ error: problem, ...entered }));
  }
  const throttled = await throttle(deps, email!, clientAddress(event));
  if (throttled) return tooManyAttempts(signUpPage, throttled.retryAfterSeconds);
  const now = deps.now();
  // No name from the address: the display name is the person's own choice, empty until they make one.
  const user = newUser({ id: deps.newId(), name: '', displayName: displayName.value, now });
  const login: Login = {
    email: email!,
    userId: user.id,
    passwordHash: await hashPassword(password),
    verified: false,
    created: now.toISOString(),
  };
  const baseUrl = baseUrlOf(deps, event);
  try {
    await deps.identities.createUserWithLogin(user, login);
    await mailLink(deps, baseUrl, 'verify-email', login);
  } catch (error) {
    if (!(error instanceof EmailTakenError)) throw error;
    // The page says the same as for a new account; only the address's owner learns it is taken.
    await deps.mailer.send(alreadyRegisteredMail(email!, `${baseUrl}${webPaths.signIn}`));
  }
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

function tooManyAttempts(page: (options: { error: string }) => string, retryAfterSeconds: number) {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return htmlResponse(
    429,
    page({ error: `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` }),
    {
      'Retry-After': String(retryAfterSeconds),
    },
  );
}

/** Makes a one-time link of `purpose` for `login` and mails it. */
function mailLink(deps: WebAccountDeps, baseUrl: string, purpose: OneTimePurpose, login: Login): Promise<string> {
  return sendOneTimeLink({ links: deps.identities, mailer: deps.mailer, now: deps.now }, baseUrl, purpose, login);
}

async function signIn(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const fields = formFields(event);
  const typed = fields.get('email') ?? '';
  const next = fields.get('next');
  const outcome = await checkSignIn(
    { ...deps, logins: deps.identities },
    {
      email: normalizeEmail(typed),
      password: fields.get('password') ?? '',
      clientAddress: clientAddress(event),
    },
  );
  switch (outcome.kind) {
    case 'throttled':
      return tooManyAttempts((options) => signInPage({ ...options, email: typed, next }), outcome.retryAfterSeconds);
    case 'refused':
      return htmlResponse(
        401,
        signInPage({ error: 'That email and password do not match an account.', email: typed, next }),
      );
    case 'unverified':
      await mailLink(deps, baseUrlOf(deps, event), 'verify-email', outcome.login);
      return htmlResponse(
        403,
        signInPage({
          error: 'Confirm your email address first: we just sent you a new link.',
          email: typed,
          next,
        }),
      );
    case 'signed-in':
      return startSession(deps, event, outcome.login.userId, safeNextPath(next));
  }
}

/** A fresh session (a new id every sign-in: no fixation), replacing the one the browser had. */
async function startSession(
  deps: WebAccountDeps,
  event: APIGatewayProxyEvent,
  userId: string,
  location: string,
): Promise<APIGatewayProxyResult> {
  const previous = await sessionOf(deps, event);
  if (previous) await deps.identities.deleteSession(previous.idHash);
  const { session, cookieValue } = newSession(userId, deps.now());
  await deps.identities.putSession(session);
  return redirectResponse(location, {
    'Set-Cookie': sessionCookie(cookieValue, secureCookies(baseUrlOf(deps, event))),
  });
}

async function signOut(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const fields = formFields(event);
  const auth = await authenticateOwner(deps, event, { csrfToken: fields.get(CSRF_FIELD) });
  if (!auth.ok) return auth.response.statusCode === 401 ? redirectResponse(webPaths.signIn) : auth.response;
  const session = auth.session!;
  if (fields.get('everywhere') === 'true') await deps.identities.deleteSessionsOf(session.userId);
  else await deps.identities.deleteSession(session.idHash);
  // The authorization server's own logins of the account end too (a browser still signed in to the
  // web app is signed in to it again at its next authorization, without a prompt).
  await deps.grants.endLogins(session.userId);
  return redirectResponse(`${webPaths.signIn}?notice=signed-out`, {
    'Set-Cookie': clearedSessionCookie(secureCookies(baseUrlOf(deps, event))),
  });
}

async function verifyEmail(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const token = queryParameter(event, 'token');
  const link = token ? await deps.identities.consumeOneTimeLink(hashSecret(token)) : null;
  if (link?.purpose !== 'verify-email' || !oneTimeLinkLive(link, deps.now())) {
    return htmlResponse(410, linkExpiredPage('confirmation'));
  }
  // A link sent to an address the account has since left verifies nothing.
  if (!(await deps.identities.markVerified(link.email, link.userId)))
    return htmlResponse(410, linkExpiredPage('confirmation'));
  return redirectResponse(`${webPaths.signIn}?notice=verified`);
}

async function forgotPassword(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const email = normalizeEmail(formFields(event).get('email') ?? '');
  if (!email) return htmlResponse(422, forgotPasswordPage({ error: 'Enter an email address like name@example.com.' }));
  const throttled = await throttle(deps, email, clientAddress(event));
  if (throttled) return tooManyAttempts(forgotPasswordPage, throttled.retryAfterSeconds);
  await requestPasswordReset(
    { logins: deps.identities, links: deps.identities, mailer: deps.mailer, now: deps.now },
    baseUrlOf(deps, event),
    email,
  );
  return redirectResponse(`${webPaths.forgotPassword}?${SENT_NOTICE}`);
}

async function passwordLink(deps: WebAccountDeps, token: string | null) {
  const link = token ? await deps.identities.getOneTimeLink(hashSecret(token)) : null;
  const usable =
    link &&
    link.userId !== NO_ACCOUNT &&
    (link.purpose === 'reset-password' || link.purpose === 'invite') &&
    oneTimeLinkLive(link, deps.now());
  return usable ? link : null;
}

async function showSetPassword(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const token = queryParameter(event, 'token');
  const link = await passwordLink(deps, token);
  if (!link) return htmlResponse(410, linkExpiredPage('password'));
  return htmlResponse(200, setPasswordPage({ token: token!, email: link.email, invited: link.purpose === 'invite' }));
}

async function setPassword(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const fields = formFields(event);
  const token = fields.get('token');
  const password = fields.get('password') ?? '';
  const link = await passwordLink(deps, token);
  if (!link) return htmlResponse(410, linkExpiredPage('password'));
  const problem = passwordProblem(password);
  if (problem) {
    return htmlResponse(
      422,
      setPasswordPage({ token: token!, email: link.email, invited: link.purpose === 'invite', error: problem }),
    );
  }
  // Used up before the password changes: a second submission of the same link finds nothing.
  if (!(await deps.identities.consumeOneTimeLink(link.tokenHash)))
    return htmlResponse(410, linkExpiredPage('password'));
  // The link proves the mailbox, so it also confirms the address; every old session ends.
  await deps.identities.setPassword(link.email, await hashPassword(password), true);
  await deps.identities.deleteSessionsOf(link.userId);
  await deps.grants.endLogins(link.userId);
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
  const [login, passkeys, user, storage] = await Promise.all([
    deps.identities.getLoginOfUser(session.userId),
    deps.identities.listPasskeys(session.userId),
    deps.accounts.getUser(session.userId),
    deps.accounts.articleUsage(session.userId),
  ]);
  const notices: Record<string, string> = {
    'email-changed': 'Your email address is changed. Open the link we sent to the new address to confirm it.',
    'password-changed': 'Your password is changed. Other browsers are signed out.',
    'passkey-removed': 'The passkey is removed.',
    'name-changed': 'Your display name is saved.',
  };
  return htmlResponse(
    messages.status ?? 200,
    accountPage(
      {
        email: login?.email ?? null,
        verified: login?.verified ?? false,
        displayName: user?.displayName ?? '',
        passkeys,
        storage,
        csrfToken: session.csrfToken,
      },
      { notice: messages.notice ?? notices[queryParameter(event, 'notice') ?? ''] ?? null, error: messages.error },
    ),
  );
}

/** A form post of the Account page: the session with its CSRF token checked, and the user's login. */
async function accountForm(
  deps: WebAccountDeps,
  event: APIGatewayProxyEvent,
): Promise<{ response: APIGatewayProxyResult } | { fields: URLSearchParams; session: Session; login: Login | null }> {
  const fields = formFields(event);
  const auth = await authenticateOwner(deps, event, { csrfToken: fields.get(CSRF_FIELD) });
  if (!auth.ok)
    return { response: auth.response.statusCode === 401 ? redirectResponse(webPaths.signIn) : auth.response };
  const login = await deps.identities.getLoginOfUser(auth.principal.userId);
  return { fields, session: auth.session!, login };
}

async function changeEmail(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  const email = normalizeEmail(form.fields.get('email') ?? '');
  const current = form.fields.get('current-password') ?? '';
  if (!email) return showAccount(deps, event, { error: 'Enter an email address like name@example.com.', status: 422 });
  if (!form.login?.passwordHash || !(await verifyPassword(current, form.login.passwordHash))) {
    return showAccount(deps, event, { error: 'Your current password is not right.', status: 403 });
  }
  if (email !== form.login.email) {
    try {
      await deps.identities.changeEmail(form.login, email);
    } catch (error) {
      if (!(error instanceof EmailTakenError)) throw error;
      return showAccount(deps, event, { error: 'That address belongs to another account.', status: 409 });
    }
    await mailLink(deps, baseUrlOf(deps, event), 'verify-email', { ...form.login, email, verified: false });
  }
  return redirectResponse(`${webPaths.account}?notice=email-changed`);
}

async function changePassword(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  const current = form.fields.get('password-current') ?? '';
  const next = form.fields.get('new-password') ?? '';
  if (!form.login?.passwordHash || !(await verifyPassword(current, form.login.passwordHash))) {
    return showAccount(deps, event, { error: 'Your current password is not right.', status: 403 });
  }
  const problem = passwordProblem(next);
  if (problem) return showAccount(deps, event, { error: problem, status: 422 });
  await deps.identities.setPassword(form.login.email, await hashPassword(next), false);
  await deps.identities.deleteSessionsOf(form.session.userId, form.session.idHash);
  await deps.grants.endLogins(form.session.userId);
  return redirectResponse(`${webPaths.account}?notice=password-changed`);
}

async function changeDisplayName(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  const displayName = displayNameOf(form.fields.get('display-name') ?? '');
  if (!displayName.ok) return showAccount(deps, event, { error: displayName.problem, status: 422 });
  await deps.accounts.setDisplayName(form.session.userId, displayName.value);
  return redirectResponse(`${webPaths.account}?notice=name-changed`);
}

/** The JSON endpoints the passkey script calls: session and CSRF header required (registration). */
async function passkeyRegisterOptions(
  deps: WebAccountDeps,
  event: APIGatewayProxyEvent,
): Promise<APIGatewayProxyResult> {
  const passkeys = await webauthn();
  const auth = await authenticateOwner(deps, event);
  if (!auth.ok) return auth.response;
  const userId = auth.principal.userId;
  const [login, existing] = await Promise.all([
    deps.identities.getLoginOfUser(userId),
    deps.identities.listPasskeys(userId),
  ]);
  const options = await passkeys.registrationOptions(
    passkeys.relyingParty(baseUrlOf(deps, event)),
    { id: userId, email: login?.email ?? userId },
    existing,
  );
  await deps.identities.putChallenge({
    challenge: options.challenge,
    purpose: 'register',
    userId,
    expiresAt: Math.floor(deps.now().getTime() / 1000) + WEBAUTHN_CHALLENGE_SECONDS,
  });
  return jsonResponse(200, options, { 'Cache-Control': 'no-store' });
}

async function passkeyRegister(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const passkeys = await webauthn();
  const auth = await authenticateOwner(deps, event);
  if (!auth.ok) return auth.response;
  const body = jsonBody(event);
  const response = body?.response as RegistrationResponseJSON | undefined;
  const challenge = response ? passkeys.responseChallenge(response) : null;
  const stored = challenge ? await deps.identities.consumeChallenge(challenge, deps.now()) : null;
  if (!response || !stored || stored.purpose !== 'register' || stored.userId !== auth.principal.userId) {
    return errorResponse(400, 'The passkey request expired or was already used; try again');
  }
  const label = typeof body?.label === 'string' && body.label.trim() ? body.label.trim().slice(0, 60) : 'Passkey';
  const passkey = await passkeys.verifyRegistration(passkeys.relyingParty(baseUrlOf(deps, event)), {
    userId: auth.principal.userId,
    label,
    response,
    challenge: stored.challenge,
    now: deps.now(),
  });
  if (!passkey) return errorResponse(400, 'The authenticator’s answer did not verify');
  await deps.identities.putPasskey(passkey);
  return jsonResponse(201, { credential_id: passkey.credentialId, label: passkey.label });
}

async function passkeyDelete(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  const credential = form.fields.get('credential');
  // Keyed by the signed-in user: another user's credential id names nothing here.
  if (credential) await deps.identities.deletePasskey(form.session.userId, credential);
  return redirectResponse(`${webPaths.account}?notice=passkey-removed`);
}

async function passkeySignInOptions(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const passkeys = await webauthn();
  const options = await passkeys.signInOptions(passkeys.relyingParty(baseUrlOf(deps, event)));
  await deps.identities.putChallenge({
    challenge: options.challenge,
    purpose: 'sign-in',
    userId: null,
    expiresAt: Math.floor(deps.now().getTime() / 1000) + WEBAUTHN_CHALLENGE_SECONDS,
  });
  return jsonResponse(200, options, { 'Cache-Control': 'no-store' });
}

async function passkeySignIn(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const passkeys = await webauthn();
  const body = jsonBody(event);
  const response = body?.response as AuthenticationResponseJSON | undefined;
  const challenge = response ? passkeys.responseChallenge(response) : null;
  const stored = challenge ? await deps.identities.consumeChallenge(challenge, deps.now()) : null;
  const userId = response ? passkeys.responseUserId(response) : null;
  const passkey = userId && response?.id ? await deps.identities.getPasskey(userId, response.id) : null;
  const counter =
    response && stored?.purpose === 'sign-in' && passkey
      ? await passkeys.verifySignIn(passkeys.relyingParty(baseUrlOf(deps, event)), {
          passkey,
          response,
          challenge: stored.challenge,
        })
      : null;
  if (counter === null || !passkey)
    return errorResponse(401, 'That passkey did not sign you in; try again or use your password');
  await deps.identities.recordPasskeyUse(passkey, counter, deps.now());
  const redirect = await startSession(deps, event, passkey.userId, safeNextPath(String(body?.next ?? '')));
  // The script follows `location` itself: a fetch cannot be redirected into a page.
  return jsonResponse(
    200,
    { location: redirect.headers!.Location },
    { 'Set-Cookie': String(redirect.headers!['Set-Cookie']) },
  );
}

async function showConnectedApps(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const signedIn = await pageSession(deps, event);
  if ('response' in signedIn) return signedIn.response;
  const { session } = signedIn;
  const grants = await deps.grants.listGrants(session.userId);
  const apps = await Promise.all(
    grants.map(async (grant) => ({
      grantId: grant.grantId,
      clientName: (await deps.grants.clientName(grant.clientId)) ?? grant.clientId,
      scopes: grant.scopes,
      granted: grant.granted,
    })),
  );
  const notice = queryParameter(event, 'notice') === 'revoked' ? 'The app is disconnected.' : null;
  const mcpAddress = resourceIdentifier(serviceBaseUrl(event, deps.publicBaseUrl, deps.trustCdnHeaders), 'mcp');
  return htmlResponse(200, connectedAppsPage(apps, session.csrfToken, mcpAddress, notice));
}

async function revokeConnectedApp(deps: WebAccountDeps, event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const form = await accountForm(deps, event);
  if ('response' in form) return form.response;
  const grantId = form.fields.get('grant');
  // Only the signed-in user's own grant: another user's id is refused like an unknown one.
  if (!grantId || !(await deps.grants.revokeGrant(form.session.userId, grantId))) {
    return errorResponse(404, 'No such connected app');
  }
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

/**
 * The pages of signing up, signing in and the Account page. Pure rendering: each returns the whole
 * HTML document through `renderPage`; every value from outside goes through `escapeHtml`.
 */

import type { Passkey } from '../identity/identity';
import { PASSWORD_MIN_LENGTH } from '../identity/password';
import { ACCOUNT_DELETE_CONFIRMATION } from '../owner/account-deletion';
import { escapeHtml } from '../text/escape';
import { DISPLAY_NAME_MAX_LENGTH } from '../workspace/accounts';
import { csrfField, postButton, renderPage } from './layout';
import { webPaths } from './paths';

interface Messages {
  readonly notice?: string | null;
  readonly error?: string | null;
}

function emailField(value = '', autocomplete = 'username'): string {
  return `<label for="email">Email</label>
<input id="email" name="email" type="email" required maxlength="254" autocomplete="${autocomplete}" value="${escapeHtml(value)}">`;
}

function passwordField(autocomplete: 'current-password' | 'new-password', label = 'Password', id = 'password'): string {
  const rules =
    autocomplete === 'new-password' ? ` minlength="${PASSWORD_MIN_LENGTH}" aria-describedby="${id}-hint"` : '';
  const hint =
    autocomplete === 'new-password'
      ? `\n<p id="${id}-hint" class="hint">At least ${PASSWORD_MIN_LENGTH} characters; a few unrelated words make a strong one.</p>`
      : '';
  return `<label for="${id}">${escapeHtml(label)}</label>
<input id="${id}" name="${id}" type="password" required maxlength="200" autocomplete="${autocomplete}"${rules}>${hint}`;
}

/** The page at `/` for visitors who are not signed in. */
export function welcomePage(): string {
  return renderPage({
    title: 'Welcome',
    body: `<h1>Gleaner</h1>
<p>Keep what you read: save pages and highlights from your browser, tag them, and publish feeds of your notes.</p>
<p><a class="button" href="${webPaths.signUp}">Sign up</a> or <a href="${webPaths.signIn}">sign in</a>.</p>`,
  });
}

/** The display name's field: optional, the public name on published feeds. */
function displayNameField(value: string): string {
  return `<label for="display-name">Display name <span class="muted">(optional)</span></label>
<input id="display-name" name="display-name" type="text" maxlength="${DISPLAY_NAME_MAX_LENGTH}" autocomplete="nickname" aria-describedby="display-name-hint" value="${escapeHtml(value)}">
<p id="display-name-hint" class="hint">Shown as the author of the feeds you publish. Leave it empty to publish without a name.</p>`;
}

export function signUpPage(options: Messages & { email?: string; displayName?: string } = {}): string {
  return renderPage({
    title: 'Sign up',
    ...options,
    body: `<h1>Sign up</h1>
<form method="post" action="${webPaths.signUp}" class="stack">
${emailField(options.email, 'email')}
${passwordField('new-password')}
${displayNameField(options.displayName ?? '')}
<button type="submit">Sign up</button>
</form>
<p>Already have an account? <a href="${webPaths.signIn}">Sign in</a>.</p>`,
  });
}

export function signInPage(options: Messages & { email?: string; next?: string | null } = {}): string {
  const next = options.next ? `<input type="hidden" name="next" value="${escapeHtml(options.next)}">` : '';
  return renderPage({
    title: 'Sign in',
    ...options,
    scripts: ['passkey.js'],
    body: `<h1>Sign in</h1>
<form method="post" action="${webPaths.signIn}" class="stack">
${next}${emailField(options.email)}
${passwordField('current-password')}
<button type="submit">Sign in</button>
</form>
<div class="passkey-sign-in" data-passkey-sign-in hidden>
<p>Or, without a password:</p>
<button type="button" data-passkey-sign-in-button data-next="${escapeHtml(options.next ?? '')}">Sign in with a passkey</button>
<p class="error" role="alert" data-passkey-error hidden></p>
</div>
<p><a href="${webPaths.forgotPassword}">Forgot your password?</a> · No account yet? <a href="${webPaths.signUp}">Sign up</a>.</p>`,
  });
}

/** After sign-up or a reset request: the same words whether or not the address has an account. */
export function checkEmailPage(purpose: 'verify' | 'reset'): string {
  const what =
    purpose === 'verify'
      ? 'We sent a link to confirm your address. Open it to finish signing up, then sign in.'
      : 'If the address has an account, we sent it a link to choose a new password. It works for one hour.';
  return renderPage({
    title: 'Check your email',
    body: `<h1>Check your email</h1>
<p>${what}</p>
<p><a href="${webPaths.signIn}">Back to sign in</a></p>`,
  });
}

export function forgotPasswordPage(options: Messages = {}): string {
  return renderPage({
    title: 'Reset your password',
    ...options,
    body: `<h1>Reset your password</h1>
<p>Enter your address and we will mail you a link to choose a new password.</p>
<form method="post" action="${webPaths.forgotPassword}" class="stack">
${emailField()}
<button type="submit">Send the link</button>
</form>`,
  });
}

export function setPasswordPage(options: Messages & { token: string; email: string; invited: boolean }): string {
  const title = options.invited ? 'Choose your password' : 'Choose a new password';
  return renderPage({
    title,
    error: options.error,
    body: `<h1>${title}</h1>
<p>For ${escapeHtml(options.email)}.</p>
<form method="post" action="${webPaths.setPassword}" class="stack">
<input type="hidden" name="token" value="${escapeHtml(options.token)}">
<input type="text" name="username" autocomplete="username" value="${escapeHtml(options.email)}" hidden>
${passwordField('new-password')}
<button type="submit">Set password</button>
</form>`,
  });
}

/**
 * A page for a link that is unknown, used or expired: a password link offers a new one; a
 * confirmation link says that signing in confirms with a fresh link if the address still needs it.
 */
export function linkExpiredPage(kind: 'confirmation' | 'password'): string {
  const next =
    kind === 'password'
      ? `<a href="${webPaths.forgotPassword}">Ask for a new password link</a> or <a href="${webPaths.signIn}">sign in</a>.`
      : `If you confirmed your address with it, it is confirmed: <a href="${webPaths.signIn}">sign in</a>. If not, signing in mails you a fresh confirmation link.`;
  return renderPage({
    title: 'Link expired',
    body: `<h1>This link no longer works</h1>
<p>It was used already, or it expired. ${next}</p>`,
  });
}

export interface AccountView {
  readonly email: string | null;
  readonly verified: boolean;
  readonly displayName: string;
  readonly passkeys: readonly Passkey[];
  /** The kept pages (articles) and the bytes they and their images take. */
  readonly storage: { readonly articles: number; readonly bytes: number };
  readonly csrfToken: string;
}

/** Bytes as a person reads them: `0 bytes`, `812 bytes`, `14.2 kB`, `3.1 MB` (powers of 1,000, as storage is sold). */
function byteSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const [unit, size] = bytes < 1e6 ? ['kB', 1e3] : bytes < 1e9 ? ['MB', 1e6] : ['GB', 1e9];
  return `${(bytes / (size as number)).toFixed(1)} ${unit}`;
}

export function accountPage(view: AccountView, messages: Messages = {}): string {
  const csrf = csrfField(view.csrfToken);
  const passkeys = view.passkeys.length
    ? `<ul class="list">${view.passkeys
        .map(
          (passkey) =>
            `<li><span>${escapeHtml(passkey.label)} <span class="muted">added ${escapeHtml(passkey.created.slice(0, 10))}${passkey.lastUsed ? `, last used ${escapeHtml(passkey.lastUsed.slice(0, 10))}` : ''}</span></span> ${postButton(webPaths.passkeyDelete, view.csrfToken, `Remove ${passkey.label}`, 'secondary', { credential: passkey.credentialId })}</li>`,
        )
        .join('')}</ul>`
    : '<p>No passkeys yet.</p>';
  return renderPage({
    title: 'Account',
    current: 'account',
    signedIn: { csrfToken: view.csrfToken },
    scripts: ['passkey.js', 'account.js'],
    ...messages,
    body: `<h1>Account</h1>
<section aria-labelledby="name-heading">
<h2 id="name-heading">Display name</h2>
<p>${view.displayName ? escapeHtml(view.displayName) : 'No display name: your feeds are published without an author.'}</p>
<form method="post" action="${webPaths.accountDisplayName}" class="stack">
${csrf}
${displayNameField(view.displayName)}
<button type="submit">Save display name</button>
</form>
</section>
<section aria-labelledby="email-heading">
<h2 id="email-heading">Email</h2>
<p>${view.email ? `${escapeHtml(view.email)}${view.verified ? '' : ' <span class="badge">not confirmed</span>'}` : 'No email address yet.'}</p>
<form method="post" action="${webPaths.accountEmail}" class="stack">
${csrf}
<label for="new-email">New email address</label>
<input id="new-email" name="email" type="email" required maxlength="254" autocomplete="email">
${passwordField('current-password', 'Current password', 'current-password')}
<button type="submit">Change email</button>
</form>
</section>
<section aria-labelledby="password-heading">
<h2 id="password-heading">Password</h2>
<form method="post" action="${webPaths.accountPassword}" class="stack">
${csrf}
<input type="text" name="username" autocomplete="username" value="${escapeHtml(view.email ?? '')}" hidden>
${passwordField('current-password', 'Current password', 'password-current')}
${passwordField('new-password', 'New password', 'new-password')}
<button type="submit">Change password</button>
</form>
<p class="hint">Changing it signs out every other browser.</p>
</section>
<section aria-labelledby="passkeys-heading">
<h2 id="passkeys-heading">Passkeys</h2>
<p>Sign in with your device's screen lock or a security key instead of your password.</p>
${passkeys}
<div data-passkey-register hidden>
<label for="passkey-label">Name for the new passkey</label>
<input id="passkey-label" type="text" maxlength="60" value="Passkey" data-passkey-label>
<button type="button" data-passkey-register-button data-csrf="${escapeHtml(view.csrfToken)}">Add a passkey</button>
<p class="error" role="alert" data-passkey-error hidden></p>
</div>
</section>
<section aria-labelledby="data-heading">
<h2 id="data-heading">Your data</h2>
<p data-storage="${view.storage.bytes}">Kept pages: ${view.storage.articles === 1 ? '1 page' : `${view.storage.articles} pages`}, ${byteSize(view.storage.bytes)} with their images.</p>
<p>Every bookmark with its whole note, highlights, tags and kept page, your feeds and tags, as one JSON file.</p>
<p><a class="button secondary" href="${webPaths.accountExport}" download="gleaner-export.json">Download my data</a></p>
</section>
<section aria-labelledby="delete-heading">
<h2 id="delete-heading">Delete account</h2>
<p>Deletes your account and every note, highlight, feed and token in it, at once. It cannot be undone: download your data first if you want to keep it.</p>
<form class="stack" data-account-delete data-csrf="${escapeHtml(view.csrfToken)}" data-api="${webPaths.accountApi}" data-done="${webPaths.signIn}">
<label for="delete-confirm">To confirm, type <strong>${ACCOUNT_DELETE_CONFIRMATION}</strong></label>
<input id="delete-confirm" name="confirm" required autocomplete="off" pattern="${ACCOUNT_DELETE_CONFIRMATION}" aria-describedby="delete-error">
<button type="submit">Delete account</button>
<p class="error" role="alert" id="delete-error" data-account-delete-error hidden></p>
<noscript><p class="error">Deleting the account needs JavaScript.</p></noscript>
</form>
</section>
<section aria-labelledby="sessions-heading">
<h2 id="sessions-heading">Sign out</h2>
${postButton(webPaths.signOut, view.csrfToken, 'Sign out')}
${postButton(webPaths.signOut, view.csrfToken, 'Sign out everywhere', 'secondary', { everywhere: 'true' })}
</section>`,
  });
}

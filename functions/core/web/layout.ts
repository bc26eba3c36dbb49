/**
 * The shell of every page of the web app: server-rendered HTML with no inline script or style (the
 * CSP allows only the app's own files, see `PAGE_SECURITY_HEADERS`), a skip link, the navigation
 * (with the sign-out form when signed in), the stylesheet (light and dark through
 * prefers-color-scheme) and a phone-sized viewport. Pure: callers escape their own content with
 * `escapeHtml` and pass it as `body`.
 */

import { escapeHtml } from '../text/escape';
import { webPaths } from './paths';

export interface SignedIn {
  /** The session's CSRF token, for the sign-out form in the navigation and every form on the page. */
  readonly csrfToken: string;
}

export type NavItem = 'library' | 'review' | 'tags' | 'feeds' | 'settings' | 'account';

const NAV: readonly { readonly id: NavItem; readonly label: string; readonly href: string }[] = [
  { id: 'library', label: 'Library', href: webPaths.library },
  { id: 'review', label: 'Review', href: webPaths.review },
  { id: 'tags', label: 'Tags', href: webPaths.tags },
  { id: 'feeds', label: 'Feeds', href: webPaths.feeds },
  { id: 'settings', label: 'Settings', href: webPaths.apiTokens },
  { id: 'account', label: 'Account', href: webPaths.account },
];

export interface PageOptions {
  /** The page's own title; the document title adds " · Gleaner". */
  readonly title: string;
  /** The main content, already escaped HTML (starts with the page's `<h1>`). */
  readonly body: string;
  /** Set on pages for a signed-in user: the navigation and its sign-out form. */
  readonly signedIn?: SignedIn | null;
  /** The navigation entry marked `aria-current="page"`. */
  readonly current?: NavItem;
  /** ES modules from the web assets to load, by file name (e.g. `passkey.js`). */
  readonly scripts?: readonly string[];
  /** A sentence shown above the content in a live region (what an action just did). */
  readonly notice?: string | null;
  /** An error shown above the content as an alert. */
  readonly error?: string | null;
}

/** Where the built web assets (stylesheet, scripts, icons, manifest) are served. */
export const ASSETS_PATH = '/assets';

/**
 * The version of the web assets the deployed pages name (`/assets/<version>/app.css`), so CloudFront
 * and browsers keep them for good: the bundler of the functions defines it (lib/function-bundle.ts),
 * from the same build the web bucket is deployed from. Run from source (the local stack, tests), it
 * is not defined, and the assets are served unversioned and uncached.
 */
declare const GLEANER_WEB_ASSETS_VERSION: string | undefined;
/** The identifier the bundler replaces. */
export const WEB_ASSETS_VERSION_DEFINE = 'GLEANER_WEB_ASSETS_VERSION';

const assetsBase =
  typeof GLEANER_WEB_ASSETS_VERSION === 'string' ? `${ASSETS_PATH}/${GLEANER_WEB_ASSETS_VERSION}` : ASSETS_PATH;

function assetUrl(file: string): string {
  return `${assetsBase}/${file}`;
}

export function renderPage(options: PageOptions): string {
  const scripts = (options.scripts ?? [])
    .map((file) => `<script type="module" src="${escapeHtml(assetUrl(file))}"></script>\n`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(options.title)} · Gleaner</title>
<link rel="stylesheet" href="${assetUrl('app.css')}">
<link rel="manifest" href="${assetUrl('manifest.webmanifest')}">
<link rel="icon" href="${assetUrl('icon.svg')}" type="image/svg+xml">
${scripts}</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<a class="brand" href="${webPaths.home}">Gleaner</a>
${options.signedIn ? navigation(options.signedIn, options.current) : guestNavigation()}
</header>
<main id="main" tabindex="-1">
${options.notice ? `<p class="notice" role="status">${escapeHtml(options.notice)}</p>\n` : ''}${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>\n` : ''}${options.body}
</main>
</body>
</html>
`;
}

function navigation(signedIn: SignedIn, current: NavItem | undefined): string {
  const items = NAV.map(
    (item) => `<li><a href="${item.href}"${item.id === current ? ' aria-current="page"' : ''}>${item.label}</a></li>`,
  ).join('');
  return `<nav aria-label="Main"><ul>${items}<li>${postButton(webPaths.signOut, signedIn.csrfToken, 'Sign out', 'link-button')}</li></ul></nav>`;
}

function guestNavigation(): string {
  return `<nav aria-label="Main"><ul><li><a href="${webPaths.signIn}">Sign in</a></li><li><a href="${webPaths.signUp}">Sign up</a></li></ul></nav>`;
}

const SETTINGS_PAGES = [
  { id: 'tokens', label: 'API tokens', href: webPaths.apiTokens },
  { id: 'import', label: 'Import', href: webPaths.importSettings },
  { id: 'review', label: 'Review', href: webPaths.reviewSettings },
  { id: 'apps', label: 'Connected apps', href: webPaths.connectedApps },
] as const;

/** The links between the Settings pages, the current one marked. */
export function settingsNavigation(current: (typeof SETTINGS_PAGES)[number]['id']): string {
  const items = SETTINGS_PAGES.map(
    (item) => `<li><a href="${item.href}"${item.id === current ? ' aria-current="page"' : ''}>${item.label}</a></li>`,
  ).join('');
  return `<nav aria-label="Settings" class="settings-nav"><ul>${items}</ul></nav>`;
}

/** The name of the hidden field that carries the session's CSRF token in every state-changing form. */
export const CSRF_FIELD = 'csrf';

/** The hidden CSRF field for a form of a signed-in page. */
export function csrfField(csrfToken: string): string {
  return `<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrfToken)}">`;
}

/**
 * A read-only field with a Copy button beside it (copy.js copies the field and says so; without
 * script the field can still be selected and copied by hand).
 */
export function copyField(id: string, label: string, value: string): string {
  return `<label for="${id}">${escapeHtml(label)}</label>
<div class="copy-field"><input id="${id}" readonly value="${escapeHtml(value)}"> <button type="button" class="secondary" data-copy="${id}" aria-describedby="${id}-copied" hidden>Copy</button></div>
<p class="hint" id="${id}-copied" role="status" data-copied="${id}"></p>`;
}

/** A one-button form that POSTs to `action` with the CSRF token (sign out, revoke, delete). */
export function postButton(
  action: string,
  csrfToken: string,
  label: string,
  className = '',
  fields: Record<string, string> = {},
): string {
  const hidden = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
  return `<form method="post" action="${escapeHtml(action)}" class="inline-form">${csrfField(csrfToken)}${hidden}<button type="submit"${className ? ` class="${className}"` : ''}>${escapeHtml(label)}</button></form>`;
}

/**
 * The headers of every HTML page: a strict CSP (scripts, styles and everything else from this origin
 * only; no inline code), no framing, no referrer leaks, no caching of personal pages.
 * `formAction: false` drops `form-action` for the OAuth consent page, whose form ends in a redirect
 * to the client (browsers check form-action on a form's redirects too).
 */
export function pageSecurityHeaders(
  options: { formAction?: boolean; connect?: readonly string[] } = {},
): Record<string, string> {
  const policy = [
    "default-src 'self'",
    // Where a page's script may send besides this origin (the import page: the upload URL's host).
    ...(options.connect ? [`connect-src 'self' ${options.connect.join(' ')}`] : []),
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' https: data:",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    ...(options.formAction === false ? [] : ["form-action 'self'"]),
  ].join('; ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': policy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}

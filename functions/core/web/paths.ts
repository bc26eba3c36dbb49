/**
 * The web app's page addresses, named once: links, redirects and the route table use these. Pages of
 * the signed-in app are owned by their features; this is only where their paths are spelled.
 */
export const webPaths = {
  home: '/',
  signUp: '/signup',
  signIn: '/signin',
  signOut: '/signout',
  verifyEmail: '/verify-email',
  forgotPassword: '/forgot-password',
  /** Sets a password from a one-time link (a reset, or an operator's invitation). */
  setPassword: '/set-password',
  account: '/account',
  accountEmail: '/account/email',
  accountPassword: '/account/password',
  accountDisplayName: '/account/name',
  passkeyRegisterOptions: '/account/passkeys/options',
  passkeyRegister: '/account/passkeys',
  passkeyDelete: '/account/passkeys/delete',
  /** The per-user API's account (DELETE deletes it) and its export, which the Account page links to. */
  accountApi: '/api/v2/me',
  accountExport: '/api/v2/me/export',
  passkeySignInOptions: '/signin/passkey/options',
  passkeySignIn: '/signin/passkey',
  connectedApps: '/settings/apps',
  connectedAppRevoke: '/settings/apps/revoke',
  apiTokens: '/settings/tokens',
  /** Settings › Import: an export uploaded and imported through the per-user API's imports. */
  importSettings: '/settings/import',
  imports: '/api/v2/me/imports',
  library: '/library',
  /** The Library's search results (the search box's form; results as you type come from the API). */
  search: '/library/search',
  /** Deleted notes, 30 days; its form restores or deletes one for good, or empties it. */
  trash: '/library/trash',
  tags: '/tags',
  tagRename: '/tags/rename',
  tagMerge: '/tags/merge',
  feeds: '/my/feeds',
  /** The daily review, one highlight at a time; its form posts rate the highlight named in the form. */
  review: '/review',
  reviewSettings: '/settings/review',
  reviewFeed: '/settings/review/feed',
  /** The PWA's Web Share Target: a phone's share sheet posts a page here. */
  share: '/share',
} as const;

/** A note's page in the Library. */
export function notePath(noteId: string): string {
  return `${webPaths.library}/notes/${encodeURIComponent(noteId)}`;
}

/**
 * Where to go after signing in: `next` only when it is a path on this site (`/…`, not `//host` or
 * `/\host`, which browsers read as another host), else the Library. Closes the open redirect.
 */
export function safeNextPath(next: string | null | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return webPaths.library;
  if (/[\u0000-\u001f\u007f]/.test(next)) return webPaths.library;
  try {
    const resolved = new URL(next, 'https://gleaner.invalid');
    if (resolved.origin !== 'https://gleaner.invalid') return webPaths.library;
    return `${resolved.pathname}${resolved.search}${resolved.hash}`;
  } catch {
    return webPaths.library;
  }
}

/**
 * Who calls the owner's side (the per-user API `/api/v2/me/…`, the web app, MCP) and what they may do.
 * Personal access tokens are never a principal here: the contract limits them to the save path.
 */

/** OAuth scopes, with what each allows as the consent page and docs say it. */
export const SCOPES = {
  'notes:read': 'Read and search your notes, highlights and tags',
  'notes:write': 'Save, edit, tag and delete your notes',
  'feeds:read': 'See your published feeds',
  'feeds:write': 'Create, change and delete your published feeds',
  review: 'Read your daily review and rate its highlights',
} as const;

export type Scope = keyof typeof SCOPES;

export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

export interface Principal {
  readonly userId: string;
  /**
   * `session`: the web app's signed-in browser (every scope; writes need the CSRF token). `oauth`: an
   * access token issued for this resource. `operator`: the CLI, which holds the table's credentials.
   */
  readonly via: 'session' | 'oauth' | 'operator';
  readonly scopes: ReadonlySet<Scope>;
  /** The OAuth client the token was issued to (`via: 'oauth'`). */
  readonly clientId?: string;
}

/** The operator (the CLI, with the table's credentials) acting in a user's workspace: every scope. */
export function operatorFor(userId: string): Principal {
  return { userId, via: 'operator', scopes: new Set(ALL_SCOPES) };
}

/**
 * The save route's wire format (the contract's saveBookmark) as plain types, shared with clients
 * outside the server tree: the browser extension builds its requests and reads the answers with these
 * (core/wire is the one part of the server tree it may import). A type test
 * (test/unit/extension-client.test.ts) holds them to the server's own schemas, so they cannot drift.
 */

export const SAVE_PATH = '/api/v1/bookmarks/save';

/** The longest `url` a save accepts, in characters. */
export const SAVE_URL_MAX_LENGTH = 2048;

export interface SaveBookmarkBody {
  readonly url: string;
  readonly title?: string | null;
  readonly selection?: string | null;
  readonly comment?: string | null;
  /** The page's meta description; the server then need not scrape the page for it. */
  readonly description?: string | null;
  /** Appends the selection even when it repeats the note's last highlight. */
  readonly append?: boolean | null;
}

export interface BookmarkSaveResult {
  readonly bookmark: { readonly id: string; readonly url: string; readonly title?: string | null };
  readonly note_id: string;
  readonly is_new_bookmark: boolean;
  readonly selection_appended: boolean;
}

/** One item of a 422 answer's `detail`. */
export interface ValidationIssue {
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly type: string;
}

/** A structured `detail` (402, 429, 409 and the like). */
export interface ErrorDetail {
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
  /** Extra context (`used`/`limit` of a 402, `retry_after` of a 429). */
  readonly [field: string]: unknown;
}

/** Every error answer's body: a message, a structured detail, or a 422's list of issues. */
export interface ErrorBody {
  readonly detail: string | ErrorDetail | readonly ValidationIssue[];
}

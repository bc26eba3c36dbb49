/** Paged lists of a workspace (`gleaner notes list`, `bookmarks list`, `users list`). */

/** One page of a list, and the cursor that reads the next one (null on the last page). */
export interface Page<T> {
  readonly items: T[];
  readonly cursor: string | null;
}

export interface PageRequest {
  readonly limit: number;
  /** The previous page's cursor; absent for the first page. */
  readonly cursor?: string;
}

export const DEFAULT_PAGE_SIZE = 50;
/** One page stays within one BatchGetItem (100 keys). */
export const MAX_PAGE_SIZE = 100;
/** Query parameters of the note list. */
export const NOTE_PAGE_LIMIT = { min: 1, max: MAX_PAGE_SIZE, default: 50 } as const;

/** A cursor that is not one this list handed out (mistyped, truncated, or from another list). */
export class InvalidCursorError extends Error {
  constructor() {
    super('the cursor is not one this list gave out; start again without --cursor');
  }
}

/**
 * Which of a user's notes a list holds: those carrying `tag`, and (when set) only archived or only
 * unarchived ones (`archived: false` is the inbox), only starred or only unstarred ones.
 */
export interface NoteFilter {
  readonly tag?: string;
  readonly archived?: boolean;
  readonly starred?: boolean;
}

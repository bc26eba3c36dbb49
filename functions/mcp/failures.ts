import { InvalidFeedSettingsError } from '../core/feed/settings';
import { ConflictError, InvalidInputError, NotFoundError } from '../core/owner/library';
import { NoteLimitError } from '../core/owner/trash';
import { InvalidCursorError } from '../core/workspace/listing';

/**
 * What an assistant is told when a use case refuses: the same refusals the per-user API answers with
 * 404, 409 and 422, as one sentence. Anything else is `unexpected` (logged by the handler, never
 * shown as it is).
 */
export function toolFailure(error: unknown, unexpected: (error: unknown) => string): string {
  if (error instanceof NotFoundError) return `${error.message}: the id is unknown in this account.`;
  if (error instanceof InvalidInputError)
    return error.issues.map((issue) => `${issue.loc.at(-1) ?? 'input'}: ${issue.msg}`).join('; ');
  if (error instanceof InvalidCursorError) return `cursor: ${error.message}`;
  if (error instanceof ConflictError || error instanceof InvalidFeedSettingsError) return error.message;
  if (error instanceof NoteLimitError)
    return `The account's note limit (${error.limit}) is reached: the note stays in the Trash until notes are deleted.`;
  return unexpected(error);
}

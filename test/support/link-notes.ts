import { randomUUID } from 'node:crypto';
import type { DynamoAccountStore } from '../../functions/adapters/dynamo/account-store';
import type { DynamoBookmarkStore } from '../../functions/adapters/dynamo/bookmark-store';
import type { Note } from '../../functions/core/model';
import { saveBookmark } from '../../functions/core/save/save-bookmark';
import { newUser } from '../../functions/core/workspace/accounts';
import { quietSavePorts } from './save-ports';

/** Notes that link to each other, written through the save path as the API writes them. */

export async function linkingUser(accounts: DynamoAccountStore): Promise<string> {
  const id = randomUUID();
  await accounts.createUser(newUser({ id, name: 'Reader', now: new Date() }));
  return id;
}

/** Saves a page, with a quote and `comment` when one is given; the note as stored after the save. */
export async function saveLinkingNote(
  bookmarks: DynamoBookmarkStore,
  userId: string,
  page: { url: string; title: string; comment?: string | null },
): Promise<Note> {
  const comment = page.comment ?? null;
  const outcome = await saveBookmark(quietSavePorts(bookmarks), {
    userId,
    request: {
      url: new URL(page.url),
      title: page.title,
      selection: comment && 'A quote.',
      comment,
      description: null,
      append: true,
    },
    siteIcon: null,
    idempotency: null,
  });
  if (outcome.kind !== 'saved') throw new Error(outcome.kind);
  return (await bookmarks.getNote(outcome.bookmark.noteId))!;
}

import * as z from 'zod/mini';
import { bookmarkSaveResultSchema } from '../../core/contract/contract';
import { highlightSchema } from '../../core/owner/api';
import { addHighlight } from '../../core/owner/highlights';
import { IDEMPOTENCY_KEY_MAX_LENGTH, mcpIdempotencyScope } from '../../core/save/idempotency';
import { saveBookmark, saveResult } from '../../core/save/save-bookmark';
import { parseSaveRequest, SAVE_LIMITS } from '../../core/save/save-request';
import { URL_MAX_LENGTH } from '../../core/save/url';
import { noteId, optionalText, type ToolGroup, ToolRefusal } from '../tool';

/** Saving a page, as the browser extension does, and a highlight of a note's kept page. */
export const saveTools: ToolGroup = (tool, { ports, principal }) => {
  tool(
    'save_bookmark',
    {
      title: 'Save a page',
      description:
        'Saves a web page as the browser extension does: a new URL becomes a bookmark with its note; a URL saved before gets the selection appended to its note as another highlight. #hashtags in the comment become tags. Send a fresh `idempotency_key` per save, and the same one when retrying it: a repeat then saves nothing twice.',
      input: {
        url: z.string().check(z.minLength(1), z.maxLength(URL_MAX_LENGTH)),
        title: optionalText(SAVE_LIMITS.title),
        selection: optionalText(SAVE_LIMITS.selection),
        comment: optionalText(SAVE_LIMITS.comment),
        idempotency_key: z.optional(z.string().check(z.minLength(1), z.maxLength(IDEMPOTENCY_KEY_MAX_LENGTH))),
      },
      output: bookmarkSaveResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ url, title, selection, comment, idempotency_key }) => {
      const parsed = parseSaveRequest({
        url,
        title: title ?? null,
        selection: selection ?? null,
        comment: comment ?? null,
      });
      if (!parsed.ok)
        throw new ToolRefusal(parsed.issues.map((issue) => `${issue.loc.at(-1)}: ${issue.msg}`).join('; '));
      const outcome = await saveBookmark(ports.save, {
        userId: principal.userId,
        request: parsed.request,
        siteIcon: null,
        // Keys are the client's own: another client's same key is another save.
        idempotency:
          idempotency_key === undefined
            ? null
            : { scope: mcpIdempotencyScope(principal.userId), key: `${principal.clientId} ${idempotency_key}` },
      });
      const answered = outcome.kind === 'replayed' ? outcome.first : outcome;
      switch (answered.kind) {
        case 'saved': {
          const result = saveResult(answered);
          const what = result.is_new_bookmark
            ? 'Saved a new bookmark'
            : result.selection_appended
              ? 'Added the selection to the note of this page'
              : 'This page was saved before; nothing new to add';
          return {
            data: result,
            text: `${what}${outcome.kind === 'replayed' ? ' (a repeat of an earlier call with this idempotency key)' : ''}: “${result.bookmark.title}” (note ${result.note_id}).`,
          };
        }
        case 'note-limit':
          throw new ToolRefusal(
            `Not saved: the note limit of this account (${answered.limit} notes) is reached. Delete notes in Gleaner to save new pages.`,
          );
        case 'note-full':
          throw new ToolRefusal("Not saved: this page's note has reached its maximum size.");
        case 'key-reused':
          throw new ToolRefusal(
            'This idempotency_key was used before for another save: send a new key for a new save.',
          );
        case 'in-flight':
          throw new ToolRefusal('A save with this idempotency_key is still running: retry in a second.');
      }
    },
  );

  tool(
    'add_highlight',
    {
      title: 'Highlight a passage of a note',
      description:
        "Adds a passage of a note's kept page (see get_note's `article`) to the note as a highlight, as a save with a selection does: a quote in the note with the comment below it, #hashtags in the comment become tags. When the page is kept the quote must be in its text, word for word (white space may differ); give `prefix` and `suffix` (the text just before and after it) to pick one of several identical passages.",
      input: {
        note_id: noteId,
        quote: z.string().check(z.minLength(1), z.maxLength(SAVE_LIMITS.selection)),
        comment: optionalText(SAVE_LIMITS.comment),
        prefix: optionalText(200),
        suffix: optionalText(200),
      },
      output: highlightSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ note_id, quote, comment, prefix, suffix }) => {
      const highlight = await addHighlight(ports.owner, principal, note_id, { quote, comment, prefix, suffix });
      const anchored = highlight.selector ? ' (found in the kept page)' : '';
      return { data: highlight, text: `Added the highlight ${highlight.id} to note ${note_id}${anchored}.` };
    },
  );
};

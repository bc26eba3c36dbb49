import * as z from 'zod/mini';
import { TRASH_RETENTION_DAYS } from '../../core/model';
import { notePageSchema, noteSchema, noteSummarySchema } from '../../core/owner/api';
import * as library from '../../core/owner/library';
import * as trash from '../../core/owner/trash';
import { QUERY_MAX_LENGTH } from '../../core/search/query';
import { MAX_SEARCH_LIMIT, SEARCH_MODES, searchNotes } from '../../core/search/search';
import { MAX_PAGE_SIZE } from '../../core/workspace/listing';
import {
  ADDITIVE,
  noteId,
  noteText,
  optionalText,
  READ_ONLY,
  summaryText,
  type ToolGroup,
  ToolRefusal,
  tag,
} from '../tool';

const snippetSchema = z.array(z.object({ text: z.string(), match: z.boolean() }));
const searchAnswerSchema = z.object({
  results: z.array(
    z.object({
      note_id: z.string(),
      title: z.string(),
      url: z.nullable(z.string()),
      tags: z.array(z.string()),
      score: z.number(),
      snippet: snippetSchema,
      created: z.string(),
      updated: z.string(),
    }),
  ),
  cursor: z.nullable(z.string()),
  mode: z.enum(SEARCH_MODES),
  model: z.optional(z.string()),
  reason: z.optional(z.string()),
});

/** Characters of a kept page's text one get_note answer carries. */
const ARTICLE_CHARS = 20_000;

const noteWithArticleSchema = z.object({
  ...noteSchema.shape,
  article: z.object({
    status: z.enum(['pending', 'kept', 'partial', 'failed']),
    reason: z.nullable(z.string()),
    title: z.nullable(z.string()),
    word_count: z.int(),
    kept: z.nullable(z.string()),
    notice: z.nullable(z.string()),
    text: z.nullable(z.string()),
    from: z.int(),
    next_from: z.nullable(z.int()),
    total_chars: z.int(),
  }),
});

/** Finding and reading notes (search, one note whole, the newest), and deleting one to the Trash or restoring it. */
export const noteTools: ToolGroup = (tool, { ports, principal }) => {
  const { owner } = ports;
  tool(
    'search_notes',
    {
      title: 'Search notes',
      description:
        'Searches the saved notes (titles, highlights, comments, descriptions) and returns the best matches with a snippet each. The query language: words (all must match), "exact phrase", prefix*, #tag and -#tag, -word, site:example.org, after:YYYY-MM-DD, before:YYYY-MM-DD, has:highlight, is:archived, is:starred, is:unread (not archived), or a pasted URL. Pass `cursor` from an answer for the next page.',
      input: {
        query: z.string().check(z.minLength(1), z.maxLength(QUERY_MAX_LENGTH)),
        mode: z.optional(z.enum(SEARCH_MODES)),
        limit: z.optional(z.int().check(z.minimum(1), z.maximum(MAX_SEARCH_LIMIT))),
        cursor: optionalText(1000),
      },
      output: searchAnswerSchema,
      annotations: READ_ONLY,
    },
    async ({ query, mode, limit, cursor }) => {
      const found = await searchNotes(await ports.search(), principal.userId, query, {
        ...(mode ? { mode } : {}),
        ...(limit ? { limit } : {}),
        ...(cursor ? { cursor } : {}),
      });
      if (!found.ok) throw new ToolRefusal(found.problem.message);
      const answer = found.answer;
      const lines = answer.results.map(
        (hit, index) =>
          `${index + 1}. ${hit.title}${hit.url ? ` <${hit.url}>` : ''} (note ${hit.note_id})\n   ${hit.snippet.map((piece) => (piece.match ? `**${piece.text}**` : piece.text)).join('')}`,
      );
      const heading = `${answer.results.length || 'No'} note${answer.results.length === 1 ? '' : 's'} found (${answer.mode} search${answer.model ? `, model ${answer.model}` : ''}${answer.reason ? `; ${answer.reason}` : ''}).`;
      const more = answer.cursor ? `\nMore results: call again with cursor "${answer.cursor}".` : '';
      return { data: answer as z.infer<typeof searchAnswerSchema>, text: [heading, ...lines].join('\n') + more };
    },
  );

  tool(
    'get_note',
    {
      title: 'Get a note',
      description: `One note whole: its Markdown body, highlights with when they were saved, tags, comment and source URL, and the text of the page it keeps (\`article\`: its status, and at most ${ARTICLE_CHARS.toLocaleString('en')} characters of its text from \`article_from\`; \`next_from\` reads on, null at the end).`,
      input: { note_id: noteId, article_from: z.optional(z.int().check(z.minimum(0))) },
      output: noteWithArticleSchema,
      annotations: READ_ONLY,
    },
    async ({ note_id, article_from }) => {
      const [note, kept] = await Promise.all([
        library.getNote(owner, principal, note_id),
        library.getArticle(owner, principal, note_id),
      ]);
      const from = Math.min(article_from ?? 0, kept.text?.length ?? 0);
      const text = kept.text?.slice(from, from + ARTICLE_CHARS) ?? null;
      const next = kept.text && from + ARTICLE_CHARS < kept.text.length ? from + ARTICLE_CHARS : null;
      const article = {
        status: kept.status,
        reason: kept.reason,
        title: kept.title,
        word_count: kept.word_count,
        kept: kept.kept,
        notice: kept.notice,
        text,
        from,
        next_from: next,
        total_chars: kept.text?.length ?? 0,
      };
      const pageText = text
        ? `\n\nThe kept page (${kept.status}, characters ${from}–${from + text.length} of ${article.total_chars}):\n${text}${next === null ? '' : `\n\n[More: call again with article_from ${next}.]`}`
        : `\n\nThe kept page: ${kept.status}${kept.reason ? ` (${kept.reason})` : ''}.`;
      return { data: { ...note, article }, text: noteText(note) + pageText };
    },
  );

  tool(
    'list_recent_notes',
    {
      title: 'List recent notes',
      description:
        'The notes saved or changed most recently, newest first, optionally only those with a tag. `archived: false` lists the inbox (not yet read), `archived: true` the archive (most recently archived first), `starred: true` the starred notes (most recently starred first). A filtered page may come back short: pass `cursor` from an answer for the next page.',
      input: {
        limit: z.optional(z.int().check(z.minimum(1), z.maximum(MAX_PAGE_SIZE))),
        tag: z.optional(tag),
        archived: z.optional(z.boolean()),
        starred: z.optional(z.boolean()),
        cursor: optionalText(1000),
      },
      output: notePageSchema,
      annotations: READ_ONLY,
    },
    async ({ limit, tag: filter, archived, starred, cursor }) => {
      const page = await library.listNotes(
        owner,
        principal,
        {
          ...(filter === undefined ? {} : { tag: filter }),
          ...(archived === undefined ? {} : { archived }),
          ...(starred === undefined ? {} : { starred }),
        },
        { limit: limit ?? 20, ...(cursor ? { cursor } : {}) },
      );
      const lines = page.notes.map((note) => `- ${summaryText(note)}`);
      const more = page.next_cursor ? `\nMore: call again with cursor "${page.next_cursor}".` : '';
      return { data: page, text: (lines.join('\n') || 'No notes.') + more };
    },
  );

  tool(
    'delete_note',
    {
      title: 'Delete a note (to the Trash)',
      description: `Moves a note to the Trash: it leaves every list, search, feed, link and review, and is deleted for good after ${TRASH_RETENTION_DAYS} days unless restored with restore_note (the person can restore it in the web app's Trash too).`,
      input: { note_id: noteId },
      output: noteSummarySchema,
      annotations: { ...ADDITIVE, destructiveHint: true, idempotentHint: false },
    },
    async ({ note_id }) => {
      const note = await library.getNote(owner, principal, note_id);
      await library.deleteNote(owner, principal, note_id);
      return {
        data: noteSummarySchema.parse(note),
        text: `“${note.title}” is in the Trash: restore_note with note_id ${note.id} brings it back within ${TRASH_RETENTION_DAYS} days.`,
      };
    },
  );

  tool(
    'restore_note',
    {
      title: 'Restore a note from the Trash',
      description:
        'Takes a deleted note out of the Trash, back as it was (tags, highlights, reading state). Refused when the account is at its note limit.',
      input: { note_id: noteId },
      output: noteSummarySchema,
      annotations: ADDITIVE,
    },
    async ({ note_id }) => {
      const note = await trash.restoreNote(owner, principal, note_id);
      return { data: noteSummarySchema.parse(note), text: `Restored: ${summaryText(note)}` };
    },
  );
};

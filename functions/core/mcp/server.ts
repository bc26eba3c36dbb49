import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  McpError,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import type { core } from 'zod/mini';
import * as z from 'zod/mini';
import { bookmarkSaveResultSchema } from '../contract/contract';
import type { Principal } from '../identity/principal';
import { MAX_TAGS_PER_NOTE } from '../model';
import { feedListSchema, notePageSchema, noteSchema, noteSummarySchema, tagListSchema } from '../owner/api';
import type { OwnerPorts } from '../owner/library';
import * as library from '../owner/library';
import { dailyReviewSchema, ratingResultSchema } from '../review/api';
import { REVIEW_RATINGS } from '../review/schedule';
import { getDailyReview, type ReviewPorts, rateHighlight } from '../review/use-cases';
import { TAG_MAX_LENGTH } from '../save/hashtags';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from '../save/idempotency';
import { type SaveBookmarkPorts, saveBookmark, saveResult } from '../save/save-bookmark';
import { parseSaveRequest, SAVE_LIMITS } from '../save/save-request';
import { URL_MAX_LENGTH } from '../save/url';
import { QUERY_MAX_LENGTH } from '../search/query';
import { MAX_SEARCH_LIMIT, SEARCH_MODES, type SearchPorts, searchNotes } from '../search/search';
import { MAX_PAGE_SIZE } from '../workspace/listing';
import { mcpIdempotencyScope, RESOURCE_SCOPE, TOOL_SCOPES, type ToolName } from './access';
import { toolFailure } from './failures';

/**
 * Gleaner as an MCP server: the tools an assistant uses on one person's notes, and their notes as
 * `note://{id}` resources. Each tool runs one of the owner's use cases (core/owner, core/save,
 * core/search) for the principal of the request's access token, and needs one scope. A failure is a
 * tool result with `isError` and a message the assistant can act on, never a protocol error.
 */

export interface McpPorts {
  readonly owner: OwnerPorts;
  readonly save: SaveBookmarkPorts;
  /** The search index, opened on first use: only search needs it. */
  readonly search: () => Promise<SearchPorts>;
  readonly review: ReviewPorts;
  /** What the client is told of a failure no use case expects (the handler logs it, and says when a temporary fault passes). */
  readonly unexpected: (error: unknown) => string;
}

const noteId = z.guid();
const tag = z.string().check(z.minLength(1), z.maxLength(TAG_MAX_LENGTH));
const tags = z.array(tag).check(z.minLength(1), z.maxLength(MAX_TAGS_PER_NOTE));
const optionalText = (max: number) => z.optional(z.string().check(z.maxLength(max)));

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
  reason: z.optional(z.string()),
});

const feedTaggingSchema = z.object({
  feed_id: z.string(),
  note_id: z.string(),
  tags_added: z.array(z.string()),
  note_tags: z.array(z.string()),
  page_url: z.string(),
});

const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const ADDITIVE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** A use case's refusal the client can act on, as a tool error. */
class ToolRefusal extends Error {}

/** The version of the tool interface the server reports to clients. */
const TOOLS_VERSION = '1.0.0';

/** One request's server: stateless, so each request builds it for the principal its token names. */
export function buildMcpServer(ports: McpPorts, principal: Principal): McpServer {
  const server = new McpServer(
    { name: 'gleaner', title: 'Gleaner', version: TOOLS_VERSION },
    {
      instructions:
        'Gleaner keeps the pages this person saved, with their highlights, comments and tags. Search their notes before answering from memory, cite notes by title and URL, and ask before changing tags or publishing a note to a feed.',
    },
  );
  const { owner } = ports;

  /** Registers a tool whose handler runs only with its scope, and whose failures become tool errors. */
  function tool<Input extends core.$ZodShape, Output extends z.ZodMiniObject>(
    name: ToolName,
    config: { title: string; description: string; input: Input; output: Output; annotations: ToolAnnotations },
    run: (input: z.infer<z.ZodMiniObject<Input>>) => Promise<{ data: z.infer<Output>; text: string }>,
  ): void {
    const scope = TOOL_SCOPES[name];
    server.registerTool(
      name,
      {
        title: config.title,
        description: `${config.description} Needs the ${scope} scope.`,
        inputSchema: config.input,
        outputSchema: config.output,
        annotations: { title: config.title, ...config.annotations },
      },
      (async (input: z.infer<z.ZodMiniObject<Input>>): Promise<CallToolResult> => {
        if (!principal.scopes.has(scope))
          return toolError(`This connection lacks the ${scope} scope: reconnect Gleaner and allow it.`);
        try {
          const { data, text } = await run(input);
          return { structuredContent: data as Record<string, unknown>, content: [{ type: 'text', text }] };
        } catch (error) {
          return toolError(error instanceof ToolRefusal ? error.message : toolFailure(error, ports.unexpected));
        }
      }) as never,
    );
  }

  tool(
    'search_notes',
    {
      title: 'Search notes',
      description:
        'Searches the saved notes (titles, highlights, comments, descriptions) and returns the best matches with a snippet each. The query language: words (all must match), "exact phrase", prefix*, #tag and -#tag, -word, site:example.org, after:YYYY-MM-DD, before:YYYY-MM-DD, has:highlight, or a pasted URL. Pass `cursor` from an answer for the next page.',
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
      const heading = `${answer.results.length || 'No'} note${answer.results.length === 1 ? '' : 's'} found (${answer.mode} search${answer.reason ? `; ${answer.reason}` : ''}).`;
      const more = answer.cursor ? `\nMore results: call again with cursor "${answer.cursor}".` : '';
      return { data: answer as z.infer<typeof searchAnswerSchema>, text: [heading, ...lines].join('\n') + more };
    },
  );

  tool(
    'get_note',
    {
      title: 'Get a note',
      description:
        'One note whole: its Markdown body, highlights with when they were saved, tags, comment and source URL.',
      input: { note_id: noteId },
      output: noteSchema,
      annotations: READ_ONLY,
    },
    async ({ note_id }) => {
      const note = await library.getNote(owner, principal, note_id);
      return { data: note, text: noteText(note) };
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
    'list_tags',
    {
      title: 'List tags',
      description: 'Every tag in use, with how many notes carry it.',
      input: {},
      output: tagListSchema,
      annotations: READ_ONLY,
    },
    async () => {
      const list = await library.listTags(owner, principal);
      return {
        data: list,
        text: list.tags.map(({ name, count }) => `#${name} (${count})`).join('\n') || 'No tags yet.',
      };
    },
  );

  const tagChange =
    (mode: 'add' | 'remove') =>
    async ({ note_id, tags: changed }: { note_id: string; tags: string[] }) => {
      const note = await library.changeNoteTags(owner, principal, note_id, { [mode]: changed });
      const summary = noteSummarySchema.parse(note);
      return { data: summary, text: `Tags of “${note.title}” now: ${tagsText(note.tags)}` };
    };
  tool(
    'add_tags',
    {
      title: 'Add tags to a note',
      description:
        'Adds tags to a note (tags it has already stay as they are). A tag is letters, digits, _ and -, without #.',
      input: { note_id: noteId, tags },
      output: noteSummarySchema,
      annotations: ADDITIVE,
    },
    tagChange('add'),
  );
  tool(
    'remove_tags',
    {
      title: 'Remove tags from a note',
      description:
        'Removes tags from a note; the note stays. A feed that shows notes by a removed tag no longer shows it.',
      input: { note_id: noteId, tags },
      output: noteSummarySchema,
      annotations: { ...ADDITIVE, destructiveHint: true },
    },
    tagChange('remove'),
  );

  tool(
    'set_reading_state',
    {
      title: 'Archive or star a note',
      description:
        'Archives a note (`archived: true`: done reading, it leaves the inbox) or moves it back to the inbox (`archived: false`), and stars or unstars it (`starred`). A state not given stays as it is.',
      input: { note_id: noteId, archived: z.optional(z.boolean()), starred: z.optional(z.boolean()) },
      output: noteSummarySchema,
      annotations: ADDITIVE,
    },
    async ({ note_id, archived, starred }) => {
      if (archived === undefined && starred === undefined)
        throw new ToolRefusal('Give `archived`, `starred` or both: nothing to change.');
      const note = await library.editNote(owner, principal, note_id, {
        ...(archived === undefined ? {} : { archived }),
        ...(starred === undefined ? {} : { starred }),
      });
      const summary = noteSummarySchema.parse(note);
      return { data: summary, text: `“${note.title}” is now ${stateText(summary)}.` };
    },
  );

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
    'list_feeds',
    {
      title: 'List feeds',
      description:
        'The published feeds: which tags each shows, who may read it, and its addresses (page, RSS, Atom, JSON Feed).',
      input: {},
      output: feedListSchema,
      annotations: READ_ONLY,
    },
    async () => {
      const list = await library.listFeeds(owner, principal);
      const lines = list.feeds.map(
        (feed) =>
          `- ${feed.title} (feed ${feed.id}): notes tagged ${feed.tags.map((name) => `#${name}`).join(feed.match === 'all' ? ' and ' : ' or ')}, ${feed.sharing}, ${feed.page_url}`,
      );
      return { data: list, text: lines.join('\n') || 'No feeds yet.' };
    },
  );

  tool(
    'add_note_to_feed',
    {
      title: 'Publish a note in a feed',
      description:
        'Puts a note into a feed by giving it the tag(s) the feed shows (every tag of a feed that needs all, else its first), so anyone who reads the feed sees it.',
      input: { note_id: noteId, feed_id: z.guid() },
      output: feedTaggingSchema,
      annotations: ADDITIVE,
    },
    async ({ note_id, feed_id }) => {
      const feed = await library.getFeed(owner, principal, feed_id);
      const before = await library.getNote(owner, principal, note_id);
      const inFeed =
        feed.match === 'all'
          ? feed.tags.every((name) => before.tags.includes(name))
          : feed.tags.some((name) => before.tags.includes(name));
      const wanted = inFeed
        ? []
        : feed.match === 'all'
          ? feed.tags.filter((name) => !before.tags.includes(name))
          : [feed.tags[0]!];
      const note = wanted.length ? await library.changeNoteTags(owner, principal, note_id, { add: wanted }) : before;
      return {
        data: { feed_id: feed.id, note_id: note.id, tags_added: wanted, note_tags: note.tags, page_url: feed.page_url },
        text: inFeed
          ? `“${note.title}” is in the feed “${feed.title}” already.`
          : `“${note.title}” is now in the feed “${feed.title}” (added ${tagsText(wanted)}): ${feed.page_url}`,
      };
    },
  );

  tool(
    'get_daily_review',
    {
      title: "Today's review",
      description:
        "Today's daily review (in the person's time zone): a few highlights to look at again, each with its note and why it was picked, the streak and whether the day is done. Rate each with rate_highlight.",
      input: {},
      output: dailyReviewSchema,
      annotations: READ_ONLY,
    },
    async () => {
      const review = await getDailyReview(ports.review, principal, owner.now());
      const lines = review.items.map(
        (item) =>
          `${item.position}. “${item.text}”${item.comment ? ` (${item.comment})` : ''}\n   from ${item.note_title}${item.source_url ? ` <${item.source_url}>` : ''}; highlight ${item.highlight_id}${item.rated ? ', rated' : ''}`,
      );
      const heading = `Review of ${review.date}: ${review.items.length} highlight${review.items.length === 1 ? '' : 's'}${review.completed ? ', all rated' : ''}; streak ${review.streak} day${review.streak === 1 ? '' : 's'}.`;
      return { data: review, text: [heading, ...lines].join('\n') };
    },
  );

  tool(
    'rate_highlight',
    {
      title: 'Rate a highlight',
      description:
        'Rates how well the person remembered a highlight (again, hard, good, easy), which schedules its next review; discard takes it out of reviews for good.',
      input: { highlight_id: z.guid(), rating: z.enum(REVIEW_RATINGS) },
      output: ratingResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ highlight_id, rating }) => {
      const rated = await rateHighlight(ports.review, principal, highlight_id, rating, owner.now());
      return {
        data: rated,
        text: rated.next_due
          ? `Rated ${rating}: next review ${rated.next_due.slice(0, 10)}. Streak ${rated.streak}.`
          : 'Discarded: this highlight leaves the reviews.',
      };
    },
  );

  server.registerResource(
    'note',
    new ResourceTemplate('note://{id}', { list: undefined }),
    {
      title: 'A note',
      description: 'A saved note as Markdown: its body with highlights and source line.',
      mimeType: 'text/markdown',
    },
    async (uri, { id }) => {
      if (!principal.scopes.has(RESOURCE_SCOPE))
        throw new McpError(ErrorCode.InvalidRequest, `Reading notes needs the ${RESOURCE_SCOPE} scope`);
      const parsed = noteId.safeParse(id);
      if (!parsed.success)
        throw new McpError(ErrorCode.InvalidParams, `${uri.href} names no note: the id is not a UUID`);
      try {
        const note = await library.getNote(owner, principal, parsed.data);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: noteText(note) }] };
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, toolFailure(error, ports.unexpected));
      }
    },
  );
  // Listed a page at a time (the SDK's own listing has no cursor): newest notes first.
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    if (!principal.scopes.has(RESOURCE_SCOPE))
      throw new McpError(ErrorCode.InvalidRequest, `Listing notes needs the ${RESOURCE_SCOPE} scope`);
    try {
      const cursor = request.params?.cursor;
      const page = await library.listNotes(
        owner,
        principal,
        {},
        { limit: RESOURCE_PAGE_SIZE, ...(cursor ? { cursor } : {}) },
      );
      return {
        resources: page.notes.map((note) => ({
          uri: `note://${note.id}`,
          name: note.title,
          title: note.title,
          mimeType: 'text/markdown',
          ...(note.url ? { description: note.url } : {}),
        })),
        ...(page.next_cursor ? { nextCursor: page.next_cursor } : {}),
      };
    } catch (error) {
      throw new McpError(ErrorCode.InvalidParams, toolFailure(error, ports.unexpected));
    }
  });
  return server;
}

const RESOURCE_PAGE_SIZE = 50;

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

function tagsText(names: readonly string[]): string {
  return names.map((name) => `#${name}`).join(' ') || 'none';
}

/** `in the inbox` / `archived`, and `starred` when it is. */
function stateText(note: Pick<z.infer<typeof noteSummarySchema>, 'archived' | 'starred'>): string {
  return `${note.archived ? 'archived' : 'in the inbox'}${note.starred ? ', starred' : ''}`;
}

function summaryText(note: z.infer<typeof noteSummarySchema>): string {
  return `${note.title}${note.url ? ` <${note.url}>` : ''} (note ${note.id}, ${note.updated ?? note.created}, ${stateText(note)})${note.tags.length ? ` ${tagsText(note.tags)}` : ''}`;
}

function noteText(note: z.infer<typeof noteSchema>): string {
  return [
    `# ${note.title}`,
    ...(note.url ? [`Source: ${note.url}`] : []),
    `Tags: ${tagsText(note.tags)}`,
    `State: ${stateText(note)}`,
    ...(note.comment ? [`Comment: ${note.comment}`] : []),
    '',
    note.body,
  ].join('\n');
}

import * as z from 'zod/mini';
import { FEED_DESCRIPTION_MAX_LENGTH, FEED_MAX_TAGS, FEED_TITLE_MAX_LENGTH } from '../feed/settings';
import { MAX_TAGS_PER_NOTE } from '../model';
import { TAG_MAX_LENGTH } from '../save/hashtags';
import { SAVE_LIMITS } from '../save/save-request';
import { ACCOUNT_DELETE_CONFIRMATION } from './account-deletion';

/**
 * The per-user API's bodies (`/api/v2/me/…`) as zod schemas, written once: the handler parses requests
 * with them, and `/openapi/v2.json` is generated from them (functions/platform/openapi-v2.ts).
 */

export const ownerApiSchemas = z.registry<{ id: string; description?: string }>();

const uuid = z.guid();
const dateTime = z.iso.datetime({ offset: true });
const tag = z.string().check(z.minLength(1), z.maxLength(TAG_MAX_LENGTH));

/** A note comment may be as long as a save's comment. */
const NOTE_COMMENT_MAX_LENGTH = SAVE_LIMITS.comment;
const NOTE_TITLE_MAX_LENGTH = SAVE_LIMITS.title;
const TOKEN_LABEL_MAX_LENGTH = 100;
/** API tokens expire after at most ten years (or never, when no expiry is asked for). */
const TOKEN_MAX_EXPIRY_DAYS = 3650;

export const noteSummarySchema = z
  .object({
    id: uuid,
    title: z.string(),
    url: z.nullable(z.url()),
    icon: z.nullable(z.string()),
    tags: z.array(z.string()),
    created: dateTime,
    updated: z.nullable(dateTime),
    archived: z.boolean(),
    archived_at: z.nullable(dateTime),
    starred: z.boolean(),
    starred_at: z.nullable(dateTime),
  })
  .register(ownerApiSchemas, {
    id: 'NoteSummary',
    description:
      'A note as lists show it. `archived`: done reading (out of the inbox), since `archived_at`; `starred` since `starred_at`. Archiving or starring a note leaves its `updated` as it was.',
  });

const textQuoteSelectorSchema = z
  .object({ type: z.literal('TextQuoteSelector'), exact: z.string(), prefix: z.string(), suffix: z.string() })
  .register(ownerApiSchemas, {
    id: 'TextQuoteSelector',
    description:
      "Where a highlight stands in its kept page (W3C Web Annotation TextQuoteSelector): the quote (`exact`) with the text just before (`prefix`) and after (`suffix`) it, up to 32 characters each, as the page's kept text has them.",
  });

export const highlightSchema = z
  .object({
    id: uuid,
    quote: z.string(),
    comment: z.nullable(z.string()),
    saved: dateTime,
    selector: z.nullable(textQuoteSelectorSchema),
  })
  .register(ownerApiSchemas, {
    id: 'Highlight',
    description:
      'A quoted selection and its comment, as saved. `selector` anchors it in the kept page; null for highlights saved from the page itself (the reader finds those by their quote).',
  });

/** The text around a quote a client may send: a selector keeps 32 characters a side, this leaves room. */
const SELECTOR_CONTEXT_MAX_LENGTH = 200;

export const highlightCreateSchema = z
  .object({
    quote: z.string().check(z.maxLength(SAVE_LIMITS.selection)),
    comment: z.optional(z.nullable(z.string().check(z.maxLength(SAVE_LIMITS.comment)))),
    prefix: z.optional(z.nullable(z.string().check(z.maxLength(SELECTOR_CONTEXT_MAX_LENGTH)))),
    suffix: z.optional(z.nullable(z.string().check(z.maxLength(SELECTOR_CONTEXT_MAX_LENGTH)))),
  })
  .register(ownerApiSchemas, {
    id: 'HighlightCreate',
    description: `A passage of the note's kept page to add as a highlight, as a save with a selection adds one: a quote in the note's body, a highlight record, tags from the comment's #hashtags. \`quote\` is the passage (not blank, at most ${SAVE_LIMITS.selection.toLocaleString('en-US')} characters); \`prefix\` and \`suffix\` the text just before and after it, to tell repeated passages apart (white space is disregarded when matching). When the page is kept, the quote with its prefix and suffix must be in it (422 otherwise); before it is kept, the highlight is added unanchored.`,
  });

export const highlightEditSchema = z
  .object({ comment: z.nullable(z.string().check(z.maxLength(SAVE_LIMITS.comment))) })
  .register(ownerApiSchemas, {
    id: 'HighlightEdit',
    description:
      "The highlight's new comment (null or blank: none). The note's body changes with it, in the same write; #hashtags in it are added to the note's tags.",
  });

const linkedNoteSchema = z
  .object({ id: uuid, title: z.string() })
  .register(ownerApiSchemas, { id: 'LinkedNote', description: 'Another note of the account, by id and title.' });

const noteLinkSchema = z
  .object({
    kind: z.enum(['title', 'url']),
    target: z.string(),
    note: z.nullable(linkedNoteSchema),
    context: z.string(),
  })
  .register(ownerApiSchemas, {
    id: 'NoteLink',
    description:
      "A link the note makes, in the order written: `[[Title]]` (kind `title`) or a URL (kind `url`), `target` as written, and the sentence it stands in. `note` is the account's note it resolves to (by normalised title, the oldest of that title; or by the saved page's normalised URL), null while none does: such a link waits for its target and resolves once it is saved.",
  });

const backlinkSchema = z.object({ note: linkedNoteSchema, context: z.string() }).register(ownerApiSchemas, {
  id: 'Backlink',
  description:
    "A note of the account that links to this one (by its title or its page's URL), with the sentence around the link. Backlinks follow the table's change stream, so a link just written shows here within seconds.",
});

export const noteSchema = z
  .object({
    ...noteSummarySchema.shape,
    description: z.nullable(z.string()),
    comment: z.nullable(z.string()),
    body: z.string(),
    highlights: z.array(highlightSchema),
    links: z.array(noteLinkSchema),
    backlinks: z.array(backlinkSchema),
    version: z.int(),
  })
  .register(ownerApiSchemas, {
    id: 'Note',
    description:
      'A note whole: its Markdown body, the description above its source line, its own comment, its highlights oldest first, the links it makes to other notes and the notes that link to it.',
  });

const articleSchema = z
  .object({
    status: z.enum(['pending', 'kept', 'partial', 'failed']),
    reason: z.nullable(z.string()),
    title: z.nullable(z.string()),
    byline: z.nullable(z.string()),
    site_name: z.nullable(z.string()),
    published: z.nullable(z.string()),
    language: z.nullable(z.string()),
    direction: z.nullable(z.enum(['ltr', 'rtl'])),
    word_count: z.int(),
    reading_minutes: z.int(),
    lead_image: z.nullable(z.string()),
    text: z.nullable(z.string()),
    html: z.nullable(z.string()),
    kept: z.nullable(dateTime),
    source_status: z.nullable(z.enum(['live', 'gone'])),
    notice: z.nullable(z.string()),
  })
  .register(ownerApiSchemas, {
    id: 'Article',
    description:
      'The page a note keeps: `pending` until the page worker has fetched it, `kept` (an article), `partial` (a page that is not an article keeps what text it had; `reason` says why) or `failed` (nothing kept; `reason` says why). `html` is sanitized (a small allow list, absolute links with rel="noopener noreferrer nofollow", images at the service\'s own address); `text` is its plain text. When the live page has gone (404, 410, or its name no longer resolves) `source_status` is `gone`, the last copy stays and `notice` says so.',
  });

export const notePageSchema = z
  .object({ notes: z.array(noteSummarySchema), next_cursor: z.nullable(z.string()) })
  .register(ownerApiSchemas, {
    id: 'NotePage',
    description: 'Notes, most recently saved or changed first; `next_cursor` reads the next page (null on the last).',
  });

const trashedNoteSchema = z
  .object({ ...noteSummarySchema.shape, trashed_at: dateTime, purge_at: dateTime })
  .register(ownerApiSchemas, {
    id: 'TrashedNote',
    description:
      'A note in the Trash: deleted at `trashed_at`, deleted for good at `purge_at` unless restored before. While there it is in no list, search, feed, link or review, and does not count under the note cap.',
  });

const trashPageSchema = z
  .object({ notes: z.array(trashedNoteSchema), retention_days: z.int(), next_cursor: z.nullable(z.string()) })
  .register(ownerApiSchemas, {
    id: 'TrashPage',
    description:
      'Notes in the Trash, most recently deleted first; `retention_days` is how long a note stays there; `next_cursor` reads the next page (null on the last).',
  });

const trashEmptiedSchema = z
  .object({ deleted: z.int().check(z.nonnegative()) })
  .register(ownerApiSchemas, { id: 'TrashEmptied', description: 'How many notes were deleted for good.' });

export const noteEditSchema = z
  .object({
    title: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(NOTE_TITLE_MAX_LENGTH))),
    comment: z.optional(z.nullable(z.string().check(z.maxLength(NOTE_COMMENT_MAX_LENGTH)))),
    tags: z.optional(z.array(tag).check(z.maxLength(MAX_TAGS_PER_NOTE))),
    archived: z.optional(z.boolean()),
    starred: z.optional(z.boolean()),
  })
  .register(ownerApiSchemas, {
    id: 'NoteEdit',
    description:
      "What to change; absent fields stay. Tags replace the note's tags (normalised as hashtags are). `archived: true` archives the note (done reading), `false` moves it back to the inbox; `starred` stars or unstars it. Asking for the state a note is in keeps the time it got there.",
  });

/** The most notes one bulk request acts on. */
const BULK_MAX_IDS = 100;

export const noteBulkEditSchema = z
  .object({
    ids: z.array(uuid).check(z.minLength(1), z.maxLength(BULK_MAX_IDS)),
    action: z.enum(['archive', 'unarchive', 'star', 'unstar', 'tag', 'untag', 'delete']),
    tags: z.optional(z.array(tag).check(z.maxLength(MAX_TAGS_PER_NOTE))),
  })
  .register(ownerApiSchemas, {
    id: 'NoteBulkEdit',
    description: `One action on up to ${BULK_MAX_IDS} notes: archive, unarchive (back to the inbox), star, unstar, tag or untag (with \`tags\`), or delete (to the Trash). A repeated id counts once.`,
  });

const noteBulkResultSchema = z
  .object({
    results: z.array(
      z.object({ id: uuid, status: z.enum(['done', 'not_found', 'refused']), message: z.optional(z.string()) }),
    ),
  })
  .register(ownerApiSchemas, {
    id: 'NoteBulkResult',
    description:
      "Each id's outcome, in the order given: `done` (also when the note already was as asked), `not_found` (unknown, or another account's: the same answer), `refused` (the action cannot apply to it, `message` says why, e.g. a 51st tag).",
  });

const tagCountSchema = z
  .object({ name: z.string(), count: z.int().check(z.nonnegative()) })
  .register(ownerApiSchemas, { id: 'TagCount', description: 'A tag and how many notes carry it.' });

const unfinishedRetagSchema = z
  .object({
    tag: z.string(),
    into: z.string(),
    mode: z.enum(['rename', 'merge']),
    notes_changed: z.int().check(z.nonnegative()),
    started: z.string(),
  })
  .register(ownerApiSchemas, {
    id: 'UnfinishedRetag',
    description:
      'A rename or merge of `tag` into `into` that was cut short (its notes may carry either tag): repeating it finishes it.',
  });

export const tagListSchema = z
  .object({ tags: z.array(tagCountSchema), unfinished: z.optional(z.array(unfinishedRetagSchema)) })
  .register(ownerApiSchemas, {
    id: 'TagList',
    description:
      'Every tag of the workspace, by name, and (only when there are any) the renames and merges left unfinished.',
  });

export const tagRenameSchema = z.object({ name: tag }).register(ownerApiSchemas, {
  id: 'TagRename',
  description: 'The new name; 409 when another tag has it (merge instead).',
});

export const tagMergeSchema = z
  .object({ into: tag })
  .register(ownerApiSchemas, { id: 'TagMerge', description: 'The tag that takes over every note of this one.' });

const tagChangeSchema = z
  .object({
    tag: z.string(),
    notes_changed: z.int().check(z.nonnegative()),
    unfinished: z.optional(z.literal(true)),
  })
  .register(ownerApiSchemas, {
    id: 'TagChange',
    description:
      'The tag now carried, and how many notes changed. `unfinished` (only then): the change took longer than one request may, `notes_changed` is how many so far; it goes on by itself, listed as unfinished by GET /api/v2/me/tags until it is done (repeating it carries it on too).',
  });

const feedSharing = z.enum(['public', 'link', 'private']);
const feedFields = {
  title: z.string().check(z.trim(), z.minLength(1), z.maxLength(FEED_TITLE_MAX_LENGTH)),
  description: z.nullable(z.string().check(z.maxLength(FEED_DESCRIPTION_MAX_LENGTH))),
  tags: z.array(tag).check(z.minLength(1), z.maxLength(FEED_MAX_TAGS)),
  match: z.enum(['any', 'all']),
  sharing: feedSharing,
  items: z.enum(['notes', 'highlights']),
};

const feedSchema = z
  .object({
    id: uuid,
    ...feedFields,
    created: dateTime,
    updated: dateTime,
    page_url: z.url(),
    json_url: z.url(),
    rss_url: z.url(),
    atom_url: z.url(),
    json_feed_url: z.url(),
  })
  .register(ownerApiSchemas, {
    id: 'Feed',
    description:
      'A feed of the notes carrying its tags, with the addresses readers use (they answer 404 while it is private).',
  });

export const feedListSchema = z
  .object({ feeds: z.array(feedSchema) })
  .register(ownerApiSchemas, { id: 'FeedList', description: 'Every feed of the account, oldest first.' });

export const noteInFeedSchema = z
  .object({
    feed_id: uuid,
    note_id: uuid,
    tags_added: z.array(z.string()),
    note_tags: z.array(z.string()),
    page_url: z.string(),
  })
  .register(ownerApiSchemas, {
    id: 'NoteInFeed',
    description:
      "A note put into a feed: the tags it was given for the feed to show it (every tag it lacked of a feed that needs all, else the feed's first; none when the feed showed it already), its tags now, and the feed's page.",
  });

export const feedCreateSchema = z
  .object({
    title: feedFields.title,
    description: z.optional(feedFields.description),
    tags: feedFields.tags,
    match: z.optional(feedFields.match),
    sharing: z.optional(feedFields.sharing),
    items: z.optional(feedFields.items),
  })
  .register(ownerApiSchemas, {
    id: 'FeedCreate',
    description: 'A new feed; it is private unless `sharing` says otherwise, matches `any` tag and lists notes.',
  });

export const feedEditSchema = z
  .partial(z.object(feedFields))
  .register(ownerApiSchemas, { id: 'FeedEdit', description: 'What to change; absent fields stay.' });

const tokenSchema = z
  .object({
    id: uuid,
    label: z.nullable(z.string()),
    created: dateTime,
    expires: z.nullable(dateTime),
    last_used: z.nullable(dateTime),
    last_used_by: z.nullable(z.string()),
    revoked: z.boolean(),
  })
  .register(ownerApiSchemas, { id: 'ApiToken', description: 'A personal access token, without its secret.' });

const tokenListSchema = z
  .object({ tokens: z.array(tokenSchema) })
  .register(ownerApiSchemas, { id: 'ApiTokenList', description: 'Every token of the account, oldest first.' });

export const tokenCreateSchema = z
  .object({
    label: z.string().check(z.trim(), z.minLength(1), z.maxLength(TOKEN_LABEL_MAX_LENGTH)),
    expires_in_days: z.optional(z.nullable(z.int().check(z.minimum(1), z.maximum(TOKEN_MAX_EXPIRY_DAYS)))),
  })
  .register(ownerApiSchemas, {
    id: 'ApiTokenCreate',
    description: 'A label saying where the token goes, and days until it expires (null or absent: never).',
  });

const createdTokenSchema = z.object({ ...tokenSchema.shape, token: z.string() }).register(ownerApiSchemas, {
  id: 'CreatedApiToken',
  description: 'The new token and its secret (`gln_…`), shown this once: only its hash is kept.',
});

const accountSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    display_name: z.string(),
    email: z.nullable(z.string()),
    email_verified: z.boolean(),
    plan: z.enum(['free', 'pro']),
    note_cap: z.int(),
    note_count: z.int(),
    created: dateTime,
  })
  .register(ownerApiSchemas, {
    id: 'Account',
    description:
      "The signed-in account. `display_name` is the name it publishes under (its feeds' author), empty when none was chosen; `name` is the operator's label (`gleaner users create --name`), empty for accounts made by sign-up.",
  });

/** A note as exported: a bookmark's (with its `url` and kept page), or a note without a bookmark. */
const exportedNoteShape = {
  title: z.string(),
  created: dateTime,
  updated: dateTime,
  tags: z.array(z.string()),
  note: z.string(),
  highlights: z.array(
    z.object({
      quote: z.string(),
      comment: z.nullable(z.string()),
      saved: dateTime,
      selector: z.optional(textQuoteSelectorSchema),
    }),
  ),
  comment: z.optional(z.string()),
  archived: z.boolean(),
  archived_at: z.nullable(dateTime),
  starred: z.boolean(),
  starred_at: z.nullable(dateTime),
};

const exportSchema = z
  .object({
    exported: dateTime,
    account: accountSchema,
    bookmarks: z.array(z.object({ url: z.string(), ...exportedNoteShape, article: z.optional(articleSchema) })),
    notes: z.array(z.object(exportedNoteShape)),
    feeds: z.array(feedSchema),
    tokens: z.array(tokenSchema),
  })
  .register(ownerApiSchemas, {
    id: 'AccountExport',
    description:
      'Everything the account holds: each bookmark with its note and kept page (`article`, when one is stored), each note without a bookmark (an imported book of highlights, a text note) in `notes`; `gleaner import` and Settings › Import read both back, kept pages included.',
  });

export const accountDeleteSchema = z
  .object({ confirm: z.literal(ACCOUNT_DELETE_CONFIRMATION) })
  .register(ownerApiSchemas, {
    id: 'AccountDelete',
    description: 'Deleting the account and every note, feed and token it owns cannot be undone: say so.',
  });

const searchHitSchema = z
  .object({
    note_id: uuid,
    title: z.string(),
    url: z.nullable(z.string()),
    tags: z.array(z.string()),
    score: z.number(),
    snippet: z.string(),
    created: dateTime,
    updated: dateTime,
  })
  .register(ownerApiSchemas, {
    id: 'SearchHit',
    description:
      'A note that matches. `snippet` is HTML: the passage that matches best, each match in `<mark>`, everything else escaped (empty when the query had no words).',
  });

const searchResultsSchema = z
  .object({
    results: z.array(searchHitSchema),
    cursor: z.nullable(z.string()),
    mode: z.enum(['keyword', 'semantic', 'hybrid']),
    model: z.optional(z.string()),
    reason: z.optional(z.string()),
  })
  .register(ownerApiSchemas, {
    id: 'SearchResults',
    description:
      'Best first. `mode` is the mode that really ran, and `model` the embedding model whose vectors ranked them (semantic and hybrid); `reason` says why it is not the one asked for (e.g. no embedding model, or its vectors do not yet cover every note). Pass `cursor` back with the same query and mode for the next page.',
  });

const relatedNoteSchema = z
  .object({
    note_id: uuid,
    title: z.string(),
    url: z.nullable(z.string()),
    tags: z.array(z.string()),
    reason: z.string(),
  })
  .register(ownerApiSchemas, {
    id: 'RelatedNote',
    description: 'Another note of the account and why it is related: "shares #tag", "similar text", "similar meaning".',
  });

const relatedNotesSchema = z
  .object({ note_id: uuid, related: z.array(relatedNoteSchema), mode: z.enum(['semantic', 'keyword']) })
  .register(ownerApiSchemas, {
    id: 'RelatedNotes',
    description:
      'Up to 5 related notes, most related first: by vector similarity (`semantic`) when embeddings cover the account, otherwise by shared tags and a more-like-this keyword query (`keyword`).',
  });

export type NoteSummaryResource = z.infer<typeof noteSummarySchema>;
export type NoteResource = z.infer<typeof noteSchema>;
export type HighlightResource = z.infer<typeof highlightSchema>;
export type HighlightCreate = z.infer<typeof highlightCreateSchema>;
export type ArticleResource = z.infer<typeof articleSchema>;
/** @public The list's answer, as the v2 OpenAPI document describes it. */
export type NotePageResource = z.infer<typeof notePageSchema>;
export type NoteEdit = z.infer<typeof noteEditSchema>;
export type TrashPageResource = z.infer<typeof trashPageSchema>;
/** @public The answer of emptying the Trash, as the v2 OpenAPI document describes it. */
export type TrashEmptiedResource = z.infer<typeof trashEmptiedSchema>;
export type NoteBulkEdit = z.infer<typeof noteBulkEditSchema>;
export type NoteBulkResult = z.infer<typeof noteBulkResultSchema>;
/** @public The list's answer, as the v2 OpenAPI document describes it. */
export type TagListResource = z.infer<typeof tagListSchema>;
export type TagChangeResource = z.infer<typeof tagChangeSchema>;
export type FeedResource = z.infer<typeof feedSchema>;
/** @public The list's answer, as the v2 OpenAPI document describes it. */
export type FeedListResource = z.infer<typeof feedListSchema>;
export type NoteInFeedResource = z.infer<typeof noteInFeedSchema>;
export type FeedCreate = z.infer<typeof feedCreateSchema>;
export type FeedEdit = z.infer<typeof feedEditSchema>;
export type TokenResource = z.infer<typeof tokenSchema>;
/** @public The list's answer, as the v2 OpenAPI document describes it. */
export type TokenListResource = z.infer<typeof tokenListSchema>;
export type TokenCreate = z.infer<typeof tokenCreateSchema>;
export type CreatedTokenResource = z.infer<typeof createdTokenSchema>;
export type AccountResource = z.infer<typeof accountSchema>;
/** The search answer, as the v2 OpenAPI document describes it. */
export type SearchResultsResource = z.infer<typeof searchResultsSchema>;
/** The related notes answer, as the v2 OpenAPI document describes it. */
export type RelatedNotesResource = z.infer<typeof relatedNotesSchema>;
export type AccountExportResource = z.infer<typeof exportSchema>;

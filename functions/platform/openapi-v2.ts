import { contractSchemas } from '../core/contract/contract';
import { SCOPES, type Scope } from '../core/identity/principal';
import { ownerApiSchemas } from '../core/owner/api';
import { NOTE_PAGE_LIMIT } from '../core/workspace/listing';
// The review's schemas register themselves with the owner API's.
import '../core/review/api';
// And so do the imports'.
import '../core/import/api';
import { QUERY_MAX_LENGTH } from '../core/search/query';
import {
  feedFormatOperations,
  headerRef,
  headers,
  ifNoneMatchParameter,
  type JsonObject,
  jsonResponse,
  pathsOf,
  rateLimited,
  registrySchemas,
  retirementHeaders,
  schemaRef,
  sortedComponents,
  tooManyRequests,
} from './openapi';
import { type RouteDefinition, routes } from './routes';

/**
 * The OpenAPI 3.1 description of what Gleaner serves beside the contract: the per-user API
 * (`/api/v2/me/…`, generated from the route table's owner rules and the zod schemas of
 * core/owner/api.ts) and the Atom and JSON Feed formats of published feeds. `npm run openapi` writes
 * it to openapi-v2.json (committed, served at GET /openapi/v2.json); a test fails when it is stale.
 */

interface OwnerOperation {
  readonly summary: string;
  readonly description?: string;
  readonly tag: 'notes' | 'tags' | 'feeds' | 'tokens' | 'account' | 'review' | 'imports';
  /** The request body's schema. */
  readonly body?: string;
  /** The success answer: its status and body schema (none for 204). */
  readonly answer: Answer;
  readonly query?: readonly JsonObject[];
  /** A 409 the operation may answer. */
  readonly conflict?: string;
  /** A 402 the operation may answer (the account's note cap). */
  readonly noteLimit?: string;
  /** A 503 the operation may answer besides the temporary faults (a part it needs is not set up). */
  readonly unavailable?: string;
}

interface Answer {
  readonly status: 200 | 201 | 202 | 204;
  readonly schema?: string;
  readonly description: string;
}

const ok = (schema: string, description: string): Answer => ({ status: 200, schema, description });
const created = (schema: string, description: string): Answer => ({ status: 201, schema, description });
const noContent = (description: string): Answer => ({ status: 204, description });

const idParameter = (name: string, what: string) => ({
  name,
  in: 'path',
  required: true,
  description: `The ${what}'s id (a UUID). Another account's id answers 404, as an unknown one does.`,
  schema: { type: 'string', format: 'uuid' },
});

const pathParameters: Record<string, JsonObject> = {
  note_id: idParameter('note_id', 'note'),
  feed_id: idParameter('feed_id', 'feed'),
  token_id: idParameter('token_id', 'API token'),
  highlight_id: idParameter('highlight_id', 'highlight'),
  import_id: idParameter('import_id', 'import'),
  tag: {
    name: 'tag',
    in: 'path',
    required: true,
    description: 'The tag, as lists show it (a leading # is ignored).',
    schema: { type: 'string' },
  },
};

const noteListQuery = [
  {
    name: 'tag',
    in: 'query',
    required: false,
    description: 'Only notes carrying this tag.',
    schema: { type: 'string' },
  },
  {
    name: 'archived',
    in: 'query',
    required: false,
    description:
      '`false`: the inbox (notes not archived); `true`: the archive, most recently archived first. Absent: both.',
    schema: { type: 'boolean' },
  },
  {
    name: 'starred',
    in: 'query',
    required: false,
    description: '`true`: starred notes only, most recently starred first; `false`: the others. Absent: both.',
    schema: { type: 'boolean' },
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Notes per page.',
    schema: { type: 'integer', minimum: NOTE_PAGE_LIMIT.min, maximum: NOTE_PAGE_LIMIT.max, default: 50 },
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description: "The previous page's `next_cursor`.",
    schema: { type: 'string' },
  },
];

const searchQuery = [
  {
    name: 'q',
    in: 'query',
    required: true,
    description: 'The query (1 to 1,000 characters). Empty, too long, a bad date or a bad site: answers 422.',
    schema: { type: 'string', minLength: 1, maxLength: QUERY_MAX_LENGTH },
  },
  {
    name: 'mode',
    in: 'query',
    required: false,
    description:
      'keyword, semantic or hybrid (the default, unless the deployment turned embeddings off: then keyword). The answer says which mode and model really ran.',
    schema: { type: 'string', enum: ['keyword', 'semantic', 'hybrid'] },
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'Results per page.',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The previous page’s `cursor`, with the same q and mode.',
    schema: { type: 'string' },
  },
];

const SEARCH_UNAVAILABLE =
  'Search is not set up on this deployment (no index configured) or its index cannot be opened now: `code` `search_unavailable`; try again after Retry-After seconds.';

const operations: Record<string, OwnerOperation> = {
  GetMyAccount: { tag: 'account', summary: 'The signed-in account', answer: ok('Account', 'The account.') },
  DeleteMyAccount: {
    tag: 'account',
    summary: 'Delete the account with every note, feed, token and sign-in it owns',
    body: 'AccountDelete',
    answer: noContent('Deleted: nothing of the account is left.'),
  },
  ExportMyAccount: {
    tag: 'account',
    summary: 'Everything the account holds, as one JSON document',
    answer: ok('AccountExport', 'The export (an attachment).'),
  },
  ListMyNotes: {
    tag: 'notes',
    summary: 'Notes, most recently saved or changed first, a page at a time',
    description:
      'Filtered by `archived` or `starred`, a page may come back short (even empty) with a `next_cursor` when many notes are passed over: follow it.',
    query: noteListQuery,
    answer: ok('NotePage', 'A page of notes.'),
  },
  BulkEditMyNotes: {
    tag: 'notes',
    summary: 'One action on many notes: archive, unarchive, star, unstar, tag, untag or delete (to the Trash)',
    description:
      "Up to 100 ids (422 past that, or for a malformed id). Each id is answered on its own: another account's id is `not_found`, as an unknown one is, and changes nothing.",
    body: 'NoteBulkEdit',
    answer: ok('NoteBulkResult', "Each id's outcome."),
  },
  ListMyRelatedNotes: {
    tag: 'notes',
    summary: 'Up to 5 other notes related to this one, each with why',
    description:
      'By vector similarity when embeddings cover the account, otherwise by shared tags and a more-like-this keyword query. A note not yet indexed has none.',
    unavailable: SEARCH_UNAVAILABLE,
    answer: ok('RelatedNotes', 'The related notes.'),
  },
  SearchMyNotes: {
    tag: 'notes',
    summary: 'Search the account’s notes: full-text, semantic or hybrid',
    description:
      'The query language (words, "phrases", prefix*, #tag, -#tag, -word, site:, after:, before:, has:highlight, is:archived, is:starred, is:unread, a pasted URL) is described in docs/search.md. Only the caller’s notes are ever searched.',
    query: searchQuery,
    unavailable: SEARCH_UNAVAILABLE,
    answer: ok('SearchResults', 'The results, best first.'),
  },
  GetMyNote: {
    tag: 'notes',
    summary: 'A note whole: body, description, comment, tags, source URL, favicon, highlights, links and backlinks',
    description:
      "Links are the `[[Note title]]`s and saved pages' URLs in its text (body and comment), each resolved to the account's note of that normalised title or URL, or null while it waits for one; backlinks are the account's notes that link to this one. Each comes with the sentence around the link.",
    answer: ok('Note', 'The note.'),
  },
  GetMyNoteArticle: {
    tag: 'notes',
    summary: "The note's kept page: its article's text, sanitized HTML and metadata",
    description:
      'The page worker keeps the text of every saved page (docs/articles.md): the status says whether it is still pending, kept, kept partly (not an article) or failed, and why.',
    answer: ok('Article', 'The kept page.'),
  },
  EditMyNote: {
    tag: 'notes',
    summary: "Change a note's title, comment or tags, or archive or star it",
    body: 'NoteEdit',
    answer: ok('Note', 'The note as changed.'),
  },
  CreateMyHighlight: {
    tag: 'notes',
    summary: 'Add a highlight to a note, as a save with a selection does (highlighting while reading)',
    description:
      "The quote joins the note's body with its comment below it, the highlight is recorded, and the comment's #hashtags become tags of the note, in one write. When the note's page is kept, the quote with its `prefix` and `suffix` must be in the kept text (white space disregarded), and the highlight keeps the text around it there as its `selector`; otherwise it is 422 `selector_mismatch`. A note that has reached its size limit is 422 `note_too_large`, with nothing added.",
    body: 'HighlightCreate',
    answer: created('Highlight', 'The highlight as saved.'),
  },
  EditMyHighlight: {
    tag: 'notes',
    summary: "Change one highlight's comment",
    description:
      "The highlight's record and the comment below its quote in the note's body change in one write. Another account's note or highlight, or a highlight of another note, is 404.",
    body: 'HighlightEdit',
    answer: ok('Highlight', 'The highlight as changed.'),
  },
  DeleteMyHighlight: {
    tag: 'notes',
    summary: 'Delete one highlight of a note',
    description:
      "Its quote and comment leave the note's body and its record is deleted, in one write; the note and its other highlights stay.",
    answer: noContent('Deleted.'),
  },
  DeleteMyNote: {
    tag: 'notes',
    summary: 'Delete a note: it moves to the Trash for 30 days, then is deleted for good',
    description:
      'While in the Trash the note answers 404 here and is in no list, search, feed, link or review, and does not count under the note cap; restoreMyNote brings it back as it was. Saving its page again restores it too.',
    answer: noContent('Moved to the Trash.'),
  },
  ListMyTrash: {
    tag: 'notes',
    summary: 'Notes in the Trash, most recently deleted first, each with when it will be deleted for good',
    query: noteListQuery.filter((parameter) => parameter.name === 'limit' || parameter.name === 'cursor'),
    answer: ok('TrashPage', 'A page of the Trash.'),
  },
  EmptyMyTrash: {
    tag: 'notes',
    summary: 'Empty the Trash: every note in it is deleted for good, with its bookmark, highlights and kept page',
    answer: ok('TrashEmptied', 'Emptied.'),
  },
  DeleteMyNoteForever: {
    tag: 'notes',
    summary: 'Delete a note of the Trash for good, with its bookmark, highlights and kept page',
    description: 'Only a note in the Trash: any other answers 404.',
    answer: noContent('Deleted for good.'),
  },
  RestoreMyNote: {
    tag: 'notes',
    summary: 'Take a note out of the Trash: back as it was, in its lists, feeds, search, links and review',
    noteLimit: 'The note cap of the account is reached: the note stays in the Trash.',
    answer: ok('Note', 'The note, restored.'),
  },
  ListMyTags: {
    tag: 'tags',
    summary: 'Every tag with the number of notes carrying it',
    answer: ok('TagList', 'The tags, by name.'),
  },
  RenameMyTag: {
    tag: 'tags',
    summary: 'Rename a tag on every note and feed filter',
    body: 'TagRename',
    conflict:
      'Another tag has the new name (merge into it instead), or another rename or merge of this tag is unfinished (repeat that one to finish it).',
    answer: ok('TagChange', 'Renamed.'),
  },
  MergeMyTag: {
    tag: 'tags',
    summary: 'Merge a tag into another: its notes and feed filters carry the other from now on',
    body: 'TagMerge',
    conflict: 'Another rename or merge of this tag is unfinished: repeat that one to finish it.',
    answer: ok('TagChange', 'Merged.'),
  },
  ListMyFeeds: {
    tag: 'feeds',
    summary: 'Every feed of the account, with its addresses',
    answer: ok('FeedList', 'The feeds.'),
  },
  CreateMyFeed: {
    tag: 'feeds',
    summary: 'Create a feed of the notes carrying some tags',
    body: 'FeedCreate',
    answer: created('Feed', 'Created.'),
  },
  GetMyFeed: { tag: 'feeds', summary: 'A feed and its addresses', answer: ok('Feed', 'The feed.') },
  EditMyFeed: {
    tag: 'feeds',
    summary: "Change a feed's title, description, tags, match, items or visibility",
    body: 'FeedEdit',
    conflict: 'The feed changed meanwhile: read it again and retry.',
    answer: ok('Feed', 'The feed as changed.'),
  },
  DeleteMyFeed: {
    tag: 'feeds',
    summary: 'Delete a feed: its addresses answer 404 from now on',
    answer: noContent('Deleted.'),
  },
  AddMyNoteToFeed: {
    tag: 'feeds',
    summary: 'Put a note into a feed by giving it the tags the feed shows',
    description:
      "Every tag of a feed that needs all of them the note lacks, else the feed's first tag; nothing when the feed shows the note already. Its tags change as an edit changes them (the note's update time moves, so the feed lists it first).",
    answer: ok('NoteInFeed', 'The note is in the feed.'),
  },
  ListMyTokens: {
    tag: 'tokens',
    summary: 'Every API token (personal access token) of the account, without secrets',
    answer: ok('ApiTokenList', 'The tokens.'),
  },
  CreateMyToken: {
    tag: 'tokens',
    summary: 'Create an API token for the browser extension or a script; its secret is shown once',
    body: 'ApiTokenCreate',
    answer: created('CreatedApiToken', 'Created; the answer is not cached anywhere.'),
  },
  RevokeMyToken: {
    tag: 'tokens',
    summary: 'Revoke an API token: saves with it answer 401 from now on',
    answer: ok('ApiToken', 'Revoked.'),
  },
  GetMyReview: {
    summary: "Today's review: the highlights of the day, with the streak and the count of reviews",
    description:
      'Built on the first read of the user’s calendar day (in the time zone of the review settings) and the same on every read that day: highlights due under the FSRS schedule first, then highlights resurfaced by weight (never reviewed or not seen for long, recently saved, skipped less often, carrying a favoured tag; never a muted one). No highlight twice, none discarded.',
    tag: 'review',
    answer: ok('DailyReview', "The day's review."),
  },
  RateMyHighlight: {
    summary: 'Rate a highlight (again, hard, good, easy) or discard it; answers when it is due next',
    description:
      'Every rating is kept in an append-only review log (rating, time, schedule before and after). Any highlight of the account may be rated, in the day’s review or not.',
    tag: 'review',
    body: 'ReviewRatingRequest',
    answer: ok('ReviewRatingResult', 'Rated.'),
  },
  GetMyReviewSettings: {
    summary: "The daily review's settings",
    tag: 'review',
    answer: ok('ReviewSettings', 'The settings (defaults until changed: 5 a day, UTC, no tags).'),
  },
  EditMyReviewSettings: {
    summary: "Change the review's size (3–15), time zone (IANA), favoured or muted tags",
    description: 'A new size or time zone takes effect from the next day’s review: today’s stays as it was built.',
    tag: 'review',
    body: 'ReviewSettingsEdit',
    answer: ok('ReviewSettings', 'The settings as changed.'),
  },
  GetMyReviewFeed: {
    summary: 'Whether the private review feed has an address',
    tag: 'review',
    answer: ok('ReviewFeedStatus', 'Its status.'),
  },
  IssueMyReviewFeed: {
    summary: 'Issue a new secret address for the private review feed (RSS, one item a day)',
    description: 'The address before stops working. The address is in this answer only: keep it in your feed reader.',
    tag: 'review',
    answer: created('IssuedReviewFeed', 'Issued; the answer is not cached anywhere.'),
  },
  RevokeMyReviewFeed: {
    summary: 'Revoke the review feed: its address answers 404 from now on',
    tag: 'review',
    answer: noContent('Revoked (or there was none).'),
  },
  ListMyImports: {
    summary: 'The account’s imports, newest first, with their progress',
    tag: 'imports',
    answer: ok('ImportList', 'The imports.'),
  },
  CreateMyImport: {
    summary: 'Make an import: where to upload its file',
    description:
      'Step one of three: PUT the file to the answer’s `upload.url`, start the import (startMyImport), then read its progress (getMyImport). One import runs per account at a time.',
    tag: 'imports',
    body: 'ImportCreate',
    answer: created('CreatedImport', 'Made, waiting for its file; the answer is not cached anywhere.'),
    conflict: 'Another import of the account is under way (`code` import_in_progress, its id in `import_id`).',
  },
  GetMyImport: {
    summary: 'An import’s progress and report, every skipped row with its reason',
    tag: 'imports',
    answer: ok('Import', 'The import.'),
  },
  StartMyImport: {
    summary: 'Start an import whose file is uploaded',
    description: 'The worker imports it in chunks from here, also with the page closed.',
    tag: 'imports',
    answer: { status: 202, schema: 'Import', description: 'Queued.' },
    conflict: 'The file is not uploaded yet, or the import was started already.',
  },
};

function ownerOperation(route: RouteDefinition, spec: OwnerOperation): JsonObject {
  const rule = route.owner!;
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => pathParameters[match[1]!]!);
  const validated = params.length > 0 || spec.body !== undefined || spec.query !== undefined;
  const writes = route.method !== 'GET';
  const scopeNote = rule.session
    ? 'Only the signed-in web app (a browser session) may call it: OAuth clients get 403.'
    : rule.scope
      ? `OAuth access tokens need the \`${rule.scope}\` scope (${SCOPES[rule.scope]}).`
      : 'Any OAuth access token for this API may call it.';
  const csrfNote = writes ? ' A browser session sends its CSRF token as X-CSRF-Token.' : '';
  return {
    // The route id in lower camel case: GetMyNote is getMyNote.
    operationId: route.id[0]!.toLowerCase() + route.id.slice(1),
    summary: spec.summary,
    description: [spec.description, `${scopeNote}${csrfNote}`].filter(Boolean).join(' '),
    tags: [spec.tag],
    security: rule.session ? [{ session: [] }] : [{ session: [] }, { oauth: rule.scope ? [rule.scope] : [] }],
    ...(params.length || spec.query ? { parameters: [...params, ...(spec.query ?? [])] } : {}),
    ...(spec.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: schemaRef(spec.body) } } } }
      : {}),
    responses: {
      [spec.answer.status]: spec.answer.schema
        ? jsonResponse(spec.answer.description, spec.answer.schema)
        : { description: spec.answer.description, headers: rateLimited() },
      401: jsonResponse(
        'Not signed in, or the access token is missing, invalid, expired, for another resource, or a personal access token (those only save bookmarks).',
        'Error',
        { 'WWW-Authenticate': headerRef('WWW-Authenticate') },
      ),
      403: jsonResponse(
        writes
          ? "A session's write without its CSRF token, a token without the operation's scope, or an OAuth client on a session-only operation."
          : "A token without the operation's scope, or an OAuth client on a session-only operation.",
        'Error',
      ),
      ...(params.length ? { 404: jsonResponse('No such record in this account.', 'Error') } : {}),
      ...(spec.noteLimit ? { 402: jsonResponse(spec.noteLimit, 'NoteLimitError') } : {}),
      ...(spec.conflict ? { 409: jsonResponse(spec.conflict, 'Error') } : {}),
      ...(validated
        ? { 422: jsonResponse('Invalid parameters or body, or a Content-Type other than JSON.', 'HTTPValidationError') }
        : {}),
      429: tooManyRequests,
      ...(spec.unavailable
        ? { 503: jsonResponse(spec.unavailable, 'Error', { 'Retry-After': headerRef('Retry-After') }) }
        : {}),
    },
  };
}

/** The private review feed: a public route whose unguessable address stands for credentials. */
const reviewFeedOperation: JsonObject = {
  operationId: 'getReviewFeed',
  summary: 'The private review feed: RSS 2.0, one item per day with that day’s highlights',
  description:
    'For reviewing in a feed reader. The address (from issueMyReviewFeed) is the only key: keep it private. Not cached by shared caches.',
  tags: ['review'],
  parameters: [
    {
      name: 'secret',
      in: 'path',
      required: true,
      description: 'The secret part of the address.',
      schema: { type: 'string' },
    },
    ifNoneMatchParameter,
  ],
  responses: {
    200: {
      description: 'The feed.',
      headers: rateLimited({ ETag: headerRef('ETag') }),
      content: { 'application/rss+xml': { schema: { type: 'string', description: 'An RSS 2.0 document.' } } },
    },
    304: {
      description: 'The feed has not changed since the ETag sent.',
      headers: rateLimited({ ETag: headerRef('ETag') }),
    },
    404: jsonResponse('Not a current review feed address (never issued, re-issued since, or revoked).', 'Error'),
    429: tooManyRequests,
  },
};

/** The v2 document's operations by route id: the owner's routes and the feed formats. */
function v2Operations(table: readonly RouteDefinition[]): Record<string, JsonObject> {
  return {
    ...feedFormatOperations,
    GetReviewFeed: reviewFeedOperation,
    ...Object.fromEntries(
      table.flatMap((route) => {
        const spec = route.owner && operations[route.id];
        return spec ? [[route.id, ownerOperation(route, spec)]] : [];
      }),
    ),
  };
}

/** The error bodies of the contract the per-user API answers with too. */
const SHARED_ERRORS = [
  'Error',
  'ErrorDetail',
  'HTTPValidationError',
  'ValidationError',
  'RateLimitError',
  'NoteLimitError',
];

export function buildOwnerApiDocument(table: readonly RouteDefinition[] = routes): JsonObject {
  const contract = registrySchemas(contractSchemas);
  const scopes = Object.fromEntries(Object.entries(SCOPES) as [Scope, string][]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gleaner: the per-user API and the other feed formats',
      version: '2.0.0',
      description:
        "The signed-in owner's API (`/api/v2/me/…`): notes, tags, feeds, API tokens, the account and the daily review, for the web app (browser session) and OAuth 2.1 clients (access tokens for this API, scope-checked). Personal access tokens are refused here: they only save bookmarks (see /openapi.json, the contract). Also the Atom 1.0 and JSON Feed 1.1 formats of published feeds. Errors and rate limits are the contract's: every error has a top-level `detail`, every answer the four RateLimit headers, counted per account.",
    },
    tags: [
      { name: 'notes', description: 'Saved pages and their notes.' },
      { name: 'tags', description: 'Tags across notes and feed filters.' },
      { name: 'feeds', description: 'Published feeds: their settings, and their Atom and JSON Feed formats.' },
      { name: 'tokens', description: 'Personal access tokens for the save path (web app only).' },
      { name: 'account', description: 'The account itself.' },
      {
        name: 'review',
        description: 'The daily review of highlights (spaced repetition) and its private RSS feed.',
      },
      { name: 'imports', description: 'Imports of other services’ exports (Pocket, Omnivore, Instapaper, …).' },
    ],
    paths: pathsOf(table, v2Operations(table)),
    components: {
      schemas: sortedComponents({
        ...Object.fromEntries(SHARED_ERRORS.map((name) => [name, contract[name]!])),
        ...registrySchemas(ownerApiSchemas),
      }),
      headers: { ...headers, ...(table.some((route) => route.retirement) ? retirementHeaders : {}) },
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'gleaner_session',
          description:
            "The web app's session cookie (`__Host-gleaner_session` over HTTPS), set at sign-in; writes also send X-CSRF-Token.",
        },
        oauth: {
          type: 'openIdConnect',
          openIdConnectUrl: '/.well-known/openid-configuration',
          description: `OAuth 2.1 (authorization code with PKCE S256) access tokens issued for this API's resource indicator. Scopes: ${Object.entries(
            scopes,
          )
            .map(([scope, what]) => `\`${scope}\` (${what})`)
            .join(', ')}.`,
        },
      },
    },
  };
}

export function serializeOwnerApiDocument(document: JsonObject = buildOwnerApiDocument()): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

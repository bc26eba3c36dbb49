import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { userRateLimitSubject } from '../adapters/dynamo/account-deletion';
import type { DynamoIdentityStore } from '../adapters/dynamo/identity-store';
import { createSqsClient, SqsJsonPublisher } from '../adapters/sqs/sqs';
import type { RateLimiter, RateLimitPolicy } from '../core/contract/rate-limit';
import { parseUuidParameter } from '../core/contract/validation';
import type { Principal } from '../core/identity/principal';
import type { Session } from '../core/identity/session';
import type { ArticleResource, CreatedTokenResource, NoteBulkEdit } from '../core/owner/api';
import * as highlights from '../core/owner/highlights';
import * as library from '../core/owner/library';
import { InvalidInputError, NotFoundError, type OwnerPorts } from '../core/owner/library';
import * as trash from '../core/owner/trash';
import type { IssuedReviewFeedResource } from '../core/review/api';
import type { ReviewPorts } from '../core/review/use-cases';
import * as review from '../core/review/use-cases';
import { type BookmarkStore, type EnrichmentPublisher, saveBookmark } from '../core/save/save-bookmark';
import { importPage } from '../core/web/import-pages';
import { CSRF_FIELD, renderPage } from '../core/web/layout';
import {
  apiTokensPage,
  feedsPage,
  LIBRARY_VIEWS,
  type LibraryViewName,
  libraryHref,
  libraryPage,
  notePage,
  type PageContext,
  type ReaderHtml,
  tagsPage,
  trashPage,
} from '../core/web/library-pages';
import { notePath, safeNextPath, webPaths } from '../core/web/paths';
import { reviewPage, reviewSettingsPage } from '../core/web/review-pages';
import { relatedSection, SEARCH_SCRIPT, searchForm } from '../core/web/search-pages';
import { NOTE_PAGE_LIMIT, type NoteFilter } from '../core/workspace/listing';
import { serviceBaseUrl } from '../http/base-url';
import { answeringFailures } from '../http/failures';
import { type Authenticate, addressQuotaSubject, admitOwner } from '../http/owner-access';
import { sessionOf } from '../http/owner-auth';
import { ownerDeps } from '../http/owner-deps';
import { feedAddresses } from '../http/published-feed';
import { rateLimited } from '../http/rate-limited';
import { header } from '../http/responses';
import { reviewLinks } from '../http/review-links';
import { type RouteCall, type RouteOperation, routeWrapper } from '../http/route-wrapper';
import { failurePage, formFields, htmlResponse, redirectResponse, signInFirst } from '../http/web';
import { deferred, type Environment } from '../platform/env';
import { requestDeadline } from '../platform/request-deadline';
import { setting, settings } from '../platform/settings';
import type { Tracing } from '../platform/tracing';

/**
 * The signed-in pages of a workspace (Library, Note, Review, Tags, Feeds, Settings › API tokens and
 * Review) and the PWA's
 * share target. Each GET renders a page; each form POST does one thing through the same core as the
 * per-user API (core/owner/library.ts, with its ownership check) and redirects back with a notice.
 * Admission is the route table's rule through `ownerAccess`, with the form's CSRF field.
 */

export interface WebLibraryDeps extends Omit<OwnerPorts, 'feedLinks'>, ReviewPorts {
  readonly authenticate: Authenticate;
  /** Reads the session of the share target, which cannot carry a CSRF token (see share). */
  readonly sessionOf: (event: APIGatewayProxyEvent) => Promise<Session | null>;
  /** The save path's store, for the share target. */
  readonly saves: BookmarkStore;
  readonly enrichment: EnrichmentPublisher;
  readonly rateLimiter: RateLimiter;
  readonly rateLimitPolicy: RateLimitPolicy;
  readonly publicBaseUrl: string | null;
  readonly webBaseUrl: string | null;
  /** Secrets a form post minted, for the one page after its redirect. */
  readonly flashes: Pick<DynamoIdentityStore, 'putFlash' | 'takeFlash'>;
  readonly logger: Logger;
  readonly tracing?: Tracing;
}

interface Visit {
  readonly ports: OwnerPorts & ReviewPorts & { readonly enrichment: EnrichmentPublisher };
  readonly principal: Principal;
  readonly context: PageContext;
  readonly event: APIGatewayProxyEvent;
  readonly form: URLSearchParams;
  readonly reviewLinks: review.ReviewLinks;
  /** Where the import page's script uploads files: S3's presigned URLs (https), or locally this service. */
  readonly uploadHosts: readonly string[];
  /** The session's one-time flash of `kind`: `keep` stores one for the next page, `take` reads it once. */
  readonly flash: {
    keep(kind: FlashKind, value: unknown): Promise<void>;
    take(kind: FlashKind): Promise<unknown>;
  };
}

type FlashKind = 'token' | 'review-feed';

/** How long a minted secret waits for the page after the redirect. */
const FLASH_SECONDS = 300;

type Action = (visit: Visit) => Promise<APIGatewayProxyResult>;

/** The Tags page's rename or merge (also its Continue button): done, or under way when it outran the request. */
async function retagged({ ports, principal, form }: Visit, mode: 'rename' | 'merge') {
  const into = form.get(mode === 'rename' ? 'name' : 'into') ?? '';
  const change = await library.retag(ports, principal, form.get('tag') ?? '', into, mode, requestDeadline());
  return back(webPaths.tags, change.unfinished ? 'underWay' : mode === 'rename' ? 'renamed' : 'merged');
}

/** Notices a redirect may ask for, by code: no text from the request is ever shown. */
const NOTICES = {
  saved: 'Saved.',
  deleted: 'Deleted.',
  trashed: 'Moved to the Trash: restore it from there within 30 days.',
  restored: 'Restored: the note is back in your Library.',
  deletedForever: 'Deleted for good.',
  emptied: 'The Trash is empty.',
  refetching: 'Fetching the page again: reload in a moment to see the new copy.',
  highlighted: 'Highlight saved.',
  highlightDeleted: 'Highlight deleted.',
  renamed: 'Tag renamed.',
  merged: 'Tags merged.',
  inFeed: 'Added to the feed: the note has the tags it shows.',
  inFeedAlready: 'The feed shows this note already.',
  underWay: 'Under way: its other notes follow by themselves within a few minutes.',
  created: 'Created.',
  revoked: 'Token revoked. Saves with it are refused from now on.',
  shared: 'Saved from your share.',
  rated: 'Rated.',
  archived: 'Archived.',
  unarchived: 'Moved back to the inbox.',
  starred: 'Starred.',
  unstarred: 'Unstarred.',
  tagged: 'Tags added.',
  untagged: 'Tags removed.',
  partly: 'Done, except for notes that were gone or could not take the change.',
  feedIssued: 'Review feed address issued.',
  feedRevoked: 'Review feed revoked: its address answers “not found” from now on.',
} as const;

/** The notes each Library view lists. */
const VIEW_FILTERS: Record<LibraryViewName, NoteFilter> = {
  inbox: { archived: false },
  starred: { starred: true },
  archive: { archived: true },
  all: {},
};

/** What a done action on notes says. */
const BULK_NOTICES = {
  archive: 'archived',
  unarchive: 'unarchived',
  star: 'starred',
  unstar: 'unstarred',
  tag: 'tagged',
  untag: 'untagged',
  delete: 'trashed',
} as const satisfies Record<NoteBulkEdit['action'], keyof typeof NOTICES>;

const page = (html: string, status = 200) => htmlResponse(status, html);
const back = (path: string, notice: keyof typeof NOTICES) =>
  redirectResponse(`${path}${path.includes('?') ? '&' : '?'}notice=${notice}`);

/** Tags typed into a field: separated by commas or spaces, `#` optional. */
function typedTags(value: string | null): string[] {
  return (value ?? '')
    .split(/[\s,]+/)
    .map((tag) => tag.replace(/^#/, ''))
    .filter(Boolean);
}

function uuid(event: APIGatewayProxyEvent, name: string): string {
  const parsed = parseUuidParameter(name, event.pathParameters?.[name]);
  if (!parsed.ok) throw new NotFoundError(`No such ${name}`);
  return parsed.value;
}

/** The action of each route id but the share target's (the route wrapper checks that every route of this module has one). */
const actions: Record<string, Action> = {
  WebLibrary: async ({ ports, principal, context, event }) => {
    const query = event.queryStringParameters ?? {};
    const tag = query.tag?.trim() || null;
    const view: LibraryViewName = Object.hasOwn(LIBRARY_VIEWS, query.view ?? '')
      ? (query.view as LibraryViewName)
      : 'inbox';
    const found = await library.listNotes(
      ports,
      principal,
      { ...VIEW_FILTERS[view], ...(tag ? { tag } : {}) },
      {
        limit: NOTE_PAGE_LIMIT.default,
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
    );
    return page(
      libraryPage(
        { ...context, scripts: [SEARCH_SCRIPT] },
        {
          notes: found.notes,
          view,
          tag,
          olderHref: found.next_cursor && libraryHref(view, tag, found.next_cursor),
          here: libraryHref(view, tag, query.cursor ?? null),
          searchBox: searchForm(),
        },
      ),
    );
  },
  WebLibraryAction: async ({ ports, principal, form }) => {
    // A note's own button names its action and the note; the bulk form, the action and the selection.
    const single = /^(archive|unarchive|star|unstar) (\S+)$/.exec(form.get('apply') ?? '');
    const asked = single
      ? { ids: [single[2]], action: single[1] }
      : { ids: form.getAll('ids'), action: form.get('action'), tags: typedTags(form.get('tags')) };
    // The API's schemas load with the first bulk edit, not at every cold start.
    const { noteBulkEditSchema } = await import('../core/owner/api');
    const parsed = noteBulkEditSchema.safeParse(asked);
    if (!parsed.success)
      throw new InvalidInputError([
        {
          loc: ['body'],
          msg: asked.ids.length === 0 ? 'Select the notes to change first.' : 'That is not an action on notes.',
          type: 'value_error',
        },
      ]);
    const { results } = await library.bulkEdit(ports, principal, parsed.data);
    if (single && results[0]?.status === 'not_found') throw new NotFoundError('No such note');
    const notice = results.every((result) => result.status === 'done') ? BULK_NOTICES[parsed.data.action] : 'partly';
    return back(safeNextPath(form.get('return')), notice);
  },
  WebNote: async ({ ports, principal, context, event }) => {
    const noteId = uuid(event, 'note_id');
    const [note, article, { feeds }] = await Promise.all([
      library.getNote(ports, principal, noteId),
      library.getArticle(ports, principal, noteId),
      library.listFeeds(ports, principal),
    ]);
    return page(
      notePage(
        { ...context, scripts: [SEARCH_SCRIPT] },
        note,
        relatedSection(note.id),
        article,
        await reader(article),
        feeds,
      ),
    );
  },
  WebNoteRefetch: async ({ ports, principal, event }) => {
    const noteId = uuid(event, 'note_id');
    await library.refetchArticle(ports, principal, noteId);
    return back(notePath(noteId), 'refetching');
  },
  WebHighlightCreate: async ({ ports, principal, event, form }) => {
    const noteId = uuid(event, 'note_id');
    const highlight = await highlights.addHighlight(ports, principal, noteId, {
      quote: form.get('quote') ?? '',
      comment: form.get('comment'),
      prefix: form.get('prefix'),
      suffix: form.get('suffix'),
    });
    return redirectResponse(`${notePath(noteId)}?notice=highlighted#hl-${highlight.id}`);
  },
  WebHighlightEdit: async ({ ports, principal, event, form }) => {
    const noteId = uuid(event, 'note_id');
    const highlightId = uuid(event, 'highlight_id');
    await highlights.editHighlight(ports, principal, noteId, highlightId, { comment: form.get('comment') });
    return redirectResponse(`${notePath(noteId)}?notice=saved#highlight-${highlightId}`);
  },
  WebHighlightDelete: async ({ ports, principal, event }) => {
    const noteId = uuid(event, 'note_id');
    await highlights.deleteHighlight(ports, principal, noteId, uuid(event, 'highlight_id'));
    return back(notePath(noteId), 'highlightDeleted');
  },
  WebNoteEdit: async ({ ports, principal, event, form }) => {
    const noteId = uuid(event, 'note_id');
    await library.editNote(ports, principal, noteId, {
      title: form.get('title')?.trim() || undefined,
      comment: form.get('comment') ?? undefined,
      tags: typedTags(form.get('tags')),
    });
    return back(notePath(noteId), 'saved');
  },
  WebNoteToFeed: async ({ ports, principal, event, form }) => {
    const noteId = uuid(event, 'note_id');
    const { placed } = await library.addNoteToFeed(ports, principal, noteId, form.get('feed_id') ?? '');
    return back(notePath(noteId), placed.tags_added.length ? 'inFeed' : 'inFeedAlready');
  },
  WebNoteDelete: async ({ ports, principal, event }) => {
    await library.deleteNote(ports, principal, uuid(event, 'note_id'));
    return back(webPaths.library, 'trashed');
  },
  WebTrash: async ({ ports, principal, context, event }) => {
    const cursor = event.queryStringParameters?.cursor;
    const found = await trash.listTrash(ports, principal, {
      limit: NOTE_PAGE_LIMIT.default,
      ...(cursor ? { cursor } : {}),
    });
    const older = found.next_cursor && `${webPaths.trash}?${new URLSearchParams({ cursor: found.next_cursor })}`;
    return page(trashPage(context, found, older || null));
  },
  WebTrashAction: async ({ ports, principal, form }) => {
    const apply = /^(restore|delete) (\S+)$/.exec(form.get('apply') ?? '');
    if (apply) {
      const noteId = parseUuidParameter('note_id', apply[2]);
      if (!noteId.ok) throw new NotFoundError('No such note in the Trash');
      if (apply[1] === 'delete') {
        await trash.deleteForever(ports, principal, noteId.value);
        return back(webPaths.trash, 'deletedForever');
      }
      await trash.restoreNote(ports, principal, noteId.value);
      return back(webPaths.trash, 'restored');
    }
    if (form.get('apply') !== 'empty' || form.get('confirm') !== 'empty')
      throw new InvalidInputError([
        {
          loc: ['body', 'confirm'],
          msg: 'Emptying the Trash deletes its notes for good: tick “Yes, delete every note in the Trash for good” first.',
          type: 'missing',
        },
      ]);
    await trash.emptyTrash(ports, principal);
    return back(webPaths.trash, 'emptied');
  },
  WebTags: async ({ ports, principal, context }) => page(tagsPage(context, await library.listTags(ports, principal))),
  WebTagRename: (visit) => retagged(visit, 'rename'),
  WebTagMerge: (visit) => retagged(visit, 'merge'),
  WebFeeds: async ({ ports, principal, context }) =>
    page(feedsPage(context, (await library.listFeeds(ports, principal)).feeds)),
  WebFeedCreate: async ({ ports, principal, form }) => {
    await library.createFeed(ports, principal, {
      title: form.get('title') ?? '',
      tags: typedTags(form.get('tags')),
      sharing: sharing(form.get('sharing')),
    });
    return back(webPaths.feeds, 'created');
  },
  WebFeedEdit: async ({ ports, principal, event, form }) => {
    await library.editFeed(ports, principal, uuid(event, 'feed_id'), { sharing: sharing(form.get('sharing')) });
    return back(webPaths.feeds, 'saved');
  },
  WebFeedDelete: async ({ ports, principal, event }) => {
    await library.deleteFeed(ports, principal, uuid(event, 'feed_id'));
    return back(webPaths.feeds, 'deleted');
  },
  // The upload goes to the uploads' host (S3 on AWS, this service locally): the page may connect to it.
  WebImport: async ({ context, uploadHosts }) => htmlResponse(200, importPage(context), {}, { connect: uploadHosts }),
  WebApiTokens: async ({ ports, principal, context, flash }) => {
    // The new token's secret, once: the page after Create token's redirect takes it; a reload finds none.
    const created = (await flash.take('token')) as CreatedTokenResource | null;
    return page(apiTokensPage(context, (await library.listTokens(ports, principal)).tokens, created ?? undefined));
  },
  WebApiTokenCreate: async ({ ports, principal, form, flash }) => {
    const days = Number(form.get('expires_in_days') || Number.NaN);
    const label = form.get('label')?.trim() ?? '';
    if (!label)
      throw new InvalidInputError([{ loc: ['body', 'label'], msg: 'A token needs a label', type: 'missing' }]);
    const created = await library.createToken(ports, principal, {
      label: label.slice(0, 100),
      expires_in_days: Number.isInteger(days) && days > 0 ? Math.min(days, 3650) : null,
    });
    await flash.keep('token', created);
    return back(webPaths.apiTokens, 'created');
  },
  WebApiTokenRevoke: async ({ ports, principal, event }) => {
    await library.revokeToken(ports, principal, uuid(event, 'token_id'));
    return back(webPaths.apiTokens, 'revoked');
  },
  WebReview: async ({ ports, principal, context }) =>
    page(reviewPage(context, await review.getDailyReview(ports, principal, ports.now()))),
  WebReviewRate: async ({ ports, principal, form }) => {
    await review.rateHighlight(ports, principal, form.get('highlight') ?? '', form.get('rating') ?? '', ports.now());
    return back(webPaths.review, 'rated');
  },
  WebReviewSettings: async (visit) =>
    page(await reviewSettings(visit, (await visit.flash.take('review-feed')) as IssuedReviewFeedResource | null)),
  WebReviewSettingsSave: async ({ ports, principal, form }) => {
    const size = form.get('size')?.trim();
    await review.editReviewSettings(ports, principal, {
      // A number field's text as the number it is ("" and "7.5" are not sizes: the core says so).
      size: size && /^\d+$/.test(size) ? Number(size) : size,
      time_zone: form.get('time_zone') ?? '',
      favoured_tags: typedTags(form.get('favoured_tags')),
      muted_tags: typedTags(form.get('muted_tags')),
    });
    return back(webPaths.reviewSettings, 'saved');
  },
  WebReviewFeed: async (visit) => {
    const { ports, principal, form, reviewLinks, flash } = visit;
    if (form.get('action') === 'revoke') {
      await review.revokeReviewFeed(ports, principal);
      return back(webPaths.reviewSettings, 'feedRevoked');
    }
    const issued = await review.issueReviewFeed(ports, principal, reviewLinks, ports.now());
    // The address is shown once, on the page after the redirect; reloading that page issues nothing.
    await flash.keep('review-feed', issued);
    return back(webPaths.reviewSettings, 'feedIssued');
  },
};

/** The reader's HTML (sanitize-html, with its parser and PostCSS), only for a note with a kept page: loaded on first use. */
async function reader(article: ArticleResource | null): Promise<ReaderHtml | null> {
  return article?.html == null ? null : (await import('../core/article/sanitize')).readerHtml;
}

async function reviewSettings(
  { ports, principal, context }: Visit,
  issued: IssuedReviewFeedResource | null = null,
): Promise<string> {
  const [settings, feed] = await Promise.all([
    review.getReviewSettings(ports, principal),
    review.getReviewFeedStatus(ports, principal),
  ]);
  return reviewSettingsPage(context, { settings, feed, issued, timeZones: Intl.supportedValuesOf('timeZone') });
}

function sharing(value: string | null) {
  return value === 'public' || value === 'link' ? value : 'private';
}

export function makeHandler(deps: WebLibraryDeps) {
  // Each page and form runs for a signed-in visitor within their quota; its refusals are pages.
  const visit =
    (action: Action): RouteOperation =>
    async (call) => {
      const { event } = call;
      const form = event.httpMethod === 'POST' ? formFields(event) : new URLSearchParams();
      const access = await admitOwner(call, deps.authenticate, { page: true, csrfToken: form.get(CSRF_FIELD) });
      if (!access.ok) return access.response;
      const context: PageContext = {
        signedIn: { csrfToken: access.session!.csrfToken },
        notice: NOTICES[event.queryStringParameters?.notice as keyof typeof NOTICES] ?? null,
      };
      const baseUrl = serviceBaseUrl(event, deps.publicBaseUrl, false);
      const ports = { ...deps, feedLinks: (feedId: string) => feedAddresses(baseUrl, feedId) };
      const where = { userId: access.principal.userId, sessionIdHash: access.session!.idHash };
      const flash: Visit['flash'] = {
        keep: (kind, value) =>
          deps.flashes.putFlash(
            { ...where, kind, expiresAt: Math.floor(ports.now().getTime() / 1000) + FLASH_SECONDS },
            value,
          ),
        take: (kind) => deps.flashes.takeFlash({ ...where, kind }, ports.now()),
      };
      return answeringFailures(
        () =>
          action({
            ports,
            principal: access.principal,
            context,
            event,
            form,
            reviewLinks: reviewLinks(event, deps),
            uploadHosts: ['https:', ...(deps.publicBaseUrl ? [new URL(deps.publicBaseUrl).origin] : [])],
            flash,
          }),
        (failure) => failurePage(failure, event, context),
      );
    };
  return routeWrapper(
    {
      ...Object.fromEntries(Object.entries(actions).map(([id, action]) => [id, visit(action)])),
      WebShare: (call) => share(deps, call),
    },
    {
      ...deps,
      entry: 'functions/web-library/handler.ts',
      corsOrigins: [],
      rateLimit: { limiter: deps.rateLimiter, policy: deps.rateLimitPolicy },
      siteOrigin: (event) => new URL(serviceBaseUrl(event, deps.publicBaseUrl, false)).origin,
    },
  );
}

/**
 * The Web Share Target (POST /share from the installed app's share sheet): saves the shared page with
 * the session, through the save core, and opens its note. The operating system's share sheet cannot
 * send a CSRF token, so the browser's Fetch Metadata stands in for it: a share is a navigation the
 * user started (`Sec-Fetch-Site: none`) or one from the app itself (`same-origin`); a post from
 * another site is refused (its Lax session cookie would not come along either).
 */
async function share(deps: WebLibraryDeps, { event, request }: RouteCall) {
  const site = header(event.headers, 'Sec-Fetch-Site');
  const session = site === 'none' || site === 'same-origin' ? await deps.sessionOf(event) : null;
  const limit = await request.rateLimit(session ? userRateLimitSubject(session.userId) : addressQuotaSubject(event));
  if (!limit.allowed) return rateLimited(limit);
  if (!session) return signInFirst({ ...event, httpMethod: 'POST' });
  const form = formFields(event);
  // Apps share the address as `url`, or inside `text` (Android's share sheet does the latter).
  const url = form.get('url') || /https?:\/\/\S+/i.exec(form.get('text') ?? '')?.[0] || '';
  // The save request's schema loads with the first share, not at every cold start.
  const { parseSaveRequest } = await import('../core/save/save-request');
  const parsed = parseSaveRequest({ url, title: form.get('title') || null });
  const context: PageContext = { signedIn: { csrfToken: session.csrfToken } };
  if (!parsed.ok)
    return page(
      renderPage({
        title: 'Not saved',
        signedIn: context.signedIn,
        error: 'The share had no web address to save.',
        body: '<h1>Not saved</h1>',
      }),
      422,
    );
  const outcome = await saveBookmark(
    { ...deps, store: deps.saves },
    { userId: session.userId, request: parsed.request, siteIcon: null, idempotency: null },
  );
  if (outcome.kind === 'saved') return back(notePath(outcome.bookmark.noteId), 'shared');
  return page(
    renderPage({
      title: 'Not saved',
      signedIn: context.signedIn,
      error:
        outcome.kind === 'note-limit'
          ? 'Your plan’s note limit is reached: delete notes you no longer need to save new pages.'
          : 'This page’s note is full.',
      body: '<h1>Not saved</h1>',
    }),
    outcome.kind === 'note-limit' ? 402 : 422,
  );
}

export function createHandler(env: Environment) {
  const { deps, authDeps } = ownerDeps(env);
  return makeHandler({
    ...deps,
    sessionOf: (event) => sessionOf(authDeps, event),
    saves: deps.notes,
    flashes: deps.logins,
    enrichment: new SqsJsonPublisher(
      createSqsClient({ endpoint: setting(env, settings.sqsEndpoint), instrument: deps.tracing.instrument }),
      setting(env, settings.enrichmentQueueUrl),
    ),
  });
}

export const handler = deferred(() => createHandler(process.env));

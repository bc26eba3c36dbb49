import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import type { RateLimiter, RateLimitPolicy } from '../core/contract/rate-limit';
import { parseUuidParameter } from '../core/contract/validation';
import type { Principal } from '../core/identity/principal';
import type { RelatedNotesResource, SearchResultsResource } from '../core/owner/api';
import { InvalidInputError, type LibraryStore, liveNote, NotFoundError } from '../core/owner/library';
import { type RelatedIndex, relatedNotes } from '../core/search/related';
import { type SearchPorts, type SearchProblem, searchNotes } from '../core/search/search';
import { snippetHtml } from '../core/search/snippet';
import type { PageContext } from '../core/web/library-pages';
import { webPaths } from '../core/web/paths';
import { relatedPage, searchPage } from '../core/web/search-pages';
import { answeringFailures, failureResponse, UnavailableError } from '../http/failures';
import { type Authenticate, admitOwner } from '../http/owner-access';
import { ownerAdmissionDeps } from '../http/owner-deps';
import { jsonResponse } from '../http/responses';
import { type RouteOperation, routeWrapper } from '../http/route-wrapper';
import { searchOnFirstUse } from '../http/search-ports';
import { failurePage, htmlResponse } from '../http/web';
import { deferred, type Environment } from '../platform/env';
import { corsAllowedOrigins, OWNER_API_PREFLIGHT } from '../platform/routes';
import { setting, settings } from '../platform/settings';
import type { Tracing } from '../platform/tracing';

/**
 * Search and related notes: `GET /api/v2/me/search` and `…/notes/{note_id}/related` for the web app
 * and OAuth clients (JSON), and the same as pages (`/library/search`, `/library/notes/{id}/related`)
 * for browsers without script. Thin: admission and quota as on every owner's route, then
 * core/search's `searchNotes` and `relatedNotes`, whose index filters by the caller's user inside
 * the engine. The index is opened once per container and reused across requests.
 */

export interface SearchNotesDeps {
  readonly authenticate: Authenticate;
  readonly rateLimiter: RateLimiter;
  readonly rateLimitPolicy: RateLimitPolicy;
  /** Whose a note is, before its related notes are looked up (another user's answers 404). */
  readonly notes: Pick<LibraryStore, 'getNote'>;
  /** The index and embedder, opened on first use and kept. */
  readonly search: () => Promise<SearchPorts & { readonly index: RelatedIndex }>;
  /** The origins its answers allow: those of the per-user API (OWNER_API_PREFLIGHT), whose preflight its API paths share. */
  readonly corsOrigins: readonly string[];
  readonly logger: Logger;
  readonly tracing?: Tracing;
}

interface Call {
  readonly deps: SearchNotesDeps;
  readonly principal: Principal;
  readonly event: APIGatewayProxyEvent;
  /** Set on the pages (a browser session). */
  readonly context: PageContext | null;
}

type Operation = (call: Call) => Promise<APIGatewayProxyResult>;

const PROBLEM_PARAMETERS: Record<SearchProblem['code'], string> = {
  empty: 'q',
  too_long: 'q',
  bad_date: 'q',
  bad_site: 'q',
  bad_state: 'q',
  bad_limit: 'limit',
  bad_mode: 'mode',
  bad_cursor: 'cursor',
  bad_user: 'user',
};

const operations: Record<string, Operation> = {
  SearchMyNotes: async ({ deps, principal, event }) => {
    const answer = await search(deps, principal, event.queryStringParameters ?? {});
    return jsonResponse(200, {
      ...answer,
      results: answer.results.map((hit) => ({ ...hit, tags: [...hit.tags], snippet: snippetHtml(hit.snippet) })),
    } satisfies SearchResultsResource);
  },
  ListMyRelatedNotes: async ({ deps, principal, event }) =>
    jsonResponse(200, (await related(deps, principal, noteIdOf(event, false))).answer satisfies RelatedNotesResource),
  WebSearch: async ({ deps, principal, event, context }) => {
    const parameters = event.queryStringParameters ?? {};
    const query = parameters.q ?? '';
    if (!query.trim()) return page(searchPage(context!, { query, answer: null, moreHref: null }));
    try {
      const answer = await search(deps, principal, parameters);
      const more =
        answer.cursor &&
        `${webPaths.search}?${new URLSearchParams({ q: query, ...(parameters.mode ? { mode: parameters.mode } : {}), cursor: answer.cursor })}`;
      return page(searchPage(context!, { query, answer, moreHref: more || null }));
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      return page(searchPage(context!, { query, answer: null, problem: error.message, moreHref: null }), 422);
    }
  },
  WebRelatedNotes: async ({ deps, principal, event, context }) => {
    const { note, answer } = await related(deps, principal, noteIdOf(event, true));
    return page(relatedPage(context!, note, answer));
  },
};

/** One search by the request's `q`, `mode`, `limit` and `cursor`; refusals as InvalidInputError. */
async function search(deps: SearchNotesDeps, principal: Principal, parameters: Record<string, string | undefined>) {
  if (parameters.q === undefined)
    throw new InvalidInputError([{ loc: ['query', 'q'], msg: 'Field required', type: 'missing' }]);
  const limit = parameters.limit;
  if (limit !== undefined && !/^\d{1,4}$/.test(limit))
    throw new InvalidInputError([
      { loc: ['query', 'limit'], msg: 'Input should be a whole number from 1 to 100', type: 'int_parsing' },
    ]);
  const result = await searchNotes(await deps.search(), principal.userId, parameters.q, {
    ...(parameters.mode !== undefined ? { mode: parameters.mode } : {}),
    ...(limit !== undefined ? { limit: Number(limit) } : {}),
    ...(parameters.cursor !== undefined ? { cursor: parameters.cursor } : {}),
  });
  if (!result.ok) {
    const { code, message } = result.problem;
    throw new InvalidInputError([{ loc: ['query', PROBLEM_PARAMETERS[code]], msg: message, type: 'value_error' }]);
  }
  return result.answer;
}

/** One of the caller's notes with its related notes; another user's note, one in the Trash (or none) is NotFoundError. */
async function related(deps: SearchNotesDeps, principal: Principal, noteId: string) {
  const note = liveNote(principal, await deps.notes.getNote(noteId));
  return { note, answer: { note_id: noteId, ...(await relatedNotes(await deps.search(), principal.userId, noteId)) } };
}

/** The path's note id; one that is no UUID is a 422 to API clients, and names no page (404). */
function noteIdOf(event: APIGatewayProxyEvent, isPage: boolean): string {
  const parsed = parseUuidParameter('note_id', event.pathParameters?.note_id);
  if (!parsed.ok) throw isPage ? new NotFoundError('No such note') : new InvalidInputError(parsed.issues);
  return parsed.value;
}

const page = (html: string, status = 200) => htmlResponse(status, html);

export function makeHandler(deps: SearchNotesDeps) {
  // The API's answers and refusals are JSON; the pages' (a session's, with its CSRF token) are pages.
  const call =
    (operation: Operation): RouteOperation =>
    async (route) => {
      const isPage = route.route.owner?.session === true;
      const access = await admitOwner(route, deps.authenticate, { page: isPage });
      if (!access.ok) return access.response;
      const { event } = route;
      const context: PageContext | null = isPage ? { signedIn: { csrfToken: access.session!.csrfToken } } : null;
      return answeringFailures(
        async () => {
          const answer = await operation({ deps, principal: access.principal, event, context });
          // Every answer is the caller's own data: no shared cache may keep it.
          return { ...answer, headers: { ...answer.headers, 'Cache-Control': 'private, no-store' } };
        },
        (failure) => (context ? failurePage(failure, event, context) : failureResponse(failure)),
      );
    };
  return routeWrapper(Object.fromEntries(Object.entries(operations).map(([id, operation]) => [id, call(operation)])), {
    ...deps,
    entry: 'functions/search-notes/handler.ts',
    rateLimit: { limiter: deps.rateLimiter, policy: deps.rateLimitPolicy },
  });
}

export function createHandler(env: Environment) {
  const { doc, tableName, deps } = ownerAdmissionDeps(env);
  const searchIndex = searchOnFirstUse(env);
  return makeHandler({
    ...deps,
    notes: new DynamoBookmarkStore(doc, tableName),
    corsOrigins: corsAllowedOrigins(OWNER_API_PREFLIGHT, setting(env, settings.corsAllowedOrigins)),
    search: () => {
      if (!env[settings.searchIndexUri.name])
        return Promise.reject(
          new UnavailableError('search_unavailable', `Search is not set up here (${settings.searchIndexUri.name})`),
        );
      return searchIndex();
    },
  });
}

export const handler = deferred(() => createHandler(process.env));

import { Logger } from '@aws-lambda-powertools/logger';
import { describe, expect, it } from 'vitest';
import { UserNotFoundError } from '../../functions/adapters/dynamo/account-store';
import { InvalidFeedSettingsError } from '../../functions/core/feed/settings';
import { ConflictError, InvalidInputError, NotFoundError } from '../../functions/core/owner/library';
import { webPaths } from '../../functions/core/web/paths';
import { InvalidCursorError } from '../../functions/core/workspace/listing';
import { classify, failureResponse, UnavailableError, UnsupportedBodyError } from '../../functions/http/failures';
import { type RouteOperation, routeWrapper } from '../../functions/http/route-wrapper';
import { failurePage } from '../../functions/http/web';
import { toolFailure } from '../../functions/mcp/failures';
import { routes } from '../../functions/platform/routes';
import { context, proxyEvent } from '../support/factories';

/**
 * The HTTP edge of the owner's side: the route wrapper every multi-route function is served by, and
 * the one classification of refusals that the JSON answers, the pages and the MCP tools render.
 */

const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
const ACCOUNT_ENTRY = 'functions/web-account/handler.ts';
const accountRouteIds = routes.filter((route) => route.entry === ACCOUNT_ENTRY).map((route) => route.id);

/** Operations answering with their route's id. */
const namingOperations = (ids: readonly string[]): Record<string, RouteOperation> =>
  Object.fromEntries(
    ids.map((id): [string, RouteOperation] => [
      id,
      async ({ route }) => ({ statusCode: 200, headers: {}, body: route.id }),
    ]),
  );

describe('the route wrapper', () => {
  const options = { logger, corsOrigins: [], entry: ACCOUNT_ENTRY, siteOrigin: () => 'https://gleaner.test' };

  it('refuses a module without an operation for each of its routes, or with one for a route not its own', () => {
    expect(() => routeWrapper(namingOperations(accountRouteIds.slice(1)), options)).toThrow(accountRouteIds[0]);
    expect(() => routeWrapper(namingOperations([...accountRouteIds, 'GetMyAccount']), options)).toThrow('GetMyAccount');
  });

  it('runs the operation of the route id the request came in on (HEAD is its GET), after the cross-site check', async () => {
    const handler = routeWrapper(namingOperations(accountRouteIds), options);
    const call = async (httpMethod: string, resource: string, headers: Record<string, string> = {}) =>
      handler(proxyEvent({ httpMethod, resource, path: resource, headers }), context());
    expect((await call('POST', webPaths.signIn)).body).toBe('WebSignIn');
    expect((await call('GET', webPaths.signIn)).body).toBe('WebSignInPage');
    expect((await call('HEAD', webPaths.signIn)).statusCode).toBe(200);
    expect((await call('POST', webPaths.signIn, { 'Sec-Fetch-Site': 'cross-site' })).statusCode).toBe(403);
    expect((await call('POST', webPaths.signIn, { Origin: 'https://elsewhere.test' })).statusCode).toBe(403);
    expect((await call('GET', '/api/v2/me')).statusCode).toBe(404);
  });
});

describe('classify', () => {
  const issue = { loc: ['body', 'title'], msg: 'Field required', type: 'missing' };
  const cases: [unknown, number, string][] = [
    [new InvalidInputError([issue]), 422, 'title: Field required'],
    [new InvalidFeedSettingsError('A feed needs a tag'), 422, 'A feed needs a tag'],
    [new InvalidCursorError(), 422, 'cursor: the cursor is not one this list gave out; start again without --cursor'],
    [new UnsupportedBodyError('charset x-unknown'), 415, 'charset x-unknown'],
    [new NotFoundError('No such note'), 404, 'No such note: the id is unknown in this account.'],
    [new UserNotFoundError(), 404, 'No such account: the id is unknown in this account.'],
    [new ConflictError('That tag is in use'), 409, 'That tag is in use'],
    [new UnavailableError('search_unavailable', 'Search is not set up here'), 503, 'Search is not set up here'],
  ];

  it.each(cases)('gives %s the JSON status %i and one sentence for an assistant', (error, status, text) => {
    const failure = classify(error)!;
    expect(failureResponse(failure).statusCode).toBe(status);
    expect(toolFailure(error, () => 'unexpected')).toBe(text);
  });

  it('answers in the contract shapes: issues for a 422, code and message for a 409 and a 503', () => {
    expect(JSON.parse(failureResponse(classify(new InvalidInputError([issue]))!).body)).toEqual({ detail: [issue] });
    expect(JSON.parse(failureResponse(classify(new InvalidCursorError())!).body).detail[0].loc).toEqual([
      'query',
      'cursor',
    ]);
    expect(JSON.parse(failureResponse(classify(new ConflictError('clash'))!).body)).toEqual({
      detail: { code: 'conflict', message: 'clash' },
    });
    const unavailable = failureResponse(classify(new UnavailableError('search_unavailable', 'no index'))!);
    expect(unavailable.headers?.['Retry-After']).toBe('60');
  });

  it('leaves a fault it does not know to the last resort', () => {
    expect(classify(new Error('boom'))).toBeNull();
    expect(toolFailure(new Error('boom'), () => 'logged')).toBe('logged');
  });

  it('shows a page the Not found page or a Not done page with a way back', () => {
    const page = { signedIn: { csrfToken: 'csrf' } };
    const get = proxyEvent({ httpMethod: 'GET' });
    const post = proxyEvent({ httpMethod: 'POST', headers: { Referer: 'https://gleaner.test/library/tags' } });
    expect(failurePage(classify(new NotFoundError('No such note'))!, get, page).statusCode).toBe(404);
    const stale = failurePage(classify(new InvalidCursorError())!, get, page);
    expect(stale.statusCode).toBe(422);
    expect(stale.body).toContain('That page of the list no longer exists.');
    expect(stale.body).toContain(`href="${webPaths.library}"`);
    expect(failurePage(classify(new ConflictError('clash'))!, post, page).body).toContain('href="/library/tags"');
  });
});

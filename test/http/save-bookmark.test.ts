import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestStack, type TestStack } from '../support/local-stack';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestStack;
beforeAll(async () => {
  // Workers are off: the enrichment messages a save enqueues stay in the queue for the assertions.
  t = await startTestStack();
});
afterAll(() => t.stop());

/** A request with headers exactly as given (repeats included), which fetch cannot send. */
function rawRequest(
  method: string,
  path: string,
  headers: [string, string][],
  body = '',
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const { host } = new URL(t.stack.baseUrl);
    // Headers given as a list replace Node's defaults, Host and Content-Length included.
    const list = [['Host', host], ['Content-Length', String(Buffer.byteLength(body))], ...headers].flat();
    const request = httpRequest(`${t.stack.baseUrl}${path}`, { method, headers: list }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** 12 labels of distinct CJK characters: 736 characters as written, 2,305 once punycoded. */
function longInternationalHost(): string {
  const label = (k: number) =>
    Array.from({ length: 60 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 2654435761 + k * 40503) % 20000))).join(
      '',
    );
  return `${Array.from({ length: 12 }, (_, k) => label(k)).join('.')}.test`;
}

function expectRateLimitHeaders(response: Response, limit = 120) {
  expect(response.headers.get('RateLimit-Limit')).toBe(String(limit));
  // Number(null) is 0: the header's presence is checked before its value.
  expect(response.headers.get('RateLimit-Remaining')).toMatch(/^\d+$/);
  expect(Number(response.headers.get('RateLimit-Remaining'))).toBeLessThanOrEqual(limit);
  expect(Number(response.headers.get('RateLimit-Reset'))).toBeGreaterThan(0);
  expect(response.headers.get('RateLimit-Policy')).toMatch(/^\d+;w=\d+$/);
}

describe('saving a new page', () => {
  it('creates a bookmark backed by one note and answers BookmarkSaveResult', async () => {
    const { token } = await t.createUser();
    const response = await t.save(token, {
      url: 'https://Example.com/guide?utm_source=news#intro',
      title: 'The guide',
      selection: 'first line\nsecond line',
      comment: 'Read this #Serverless and #aws-lambda, see https://x.test/#notatag',
      description: 'A page about things.',
    });
    expect(response.status).toBe(200);
    expectRateLimitHeaders(response);
    const result = await json(response);
    expect(result).toEqual({
      bookmark: {
        id: expect.stringMatching(UUID),
        note_id: result.note_id,
        title: 'The guide',
        url: 'https://example.com/guide?utm_source=news#intro',
        icon: null,
        created: expect.stringMatching(ISO_WITH_OFFSET),
        updated: expect.stringMatching(ISO_WITH_OFFSET),
      },
      note_id: expect.stringMatching(UUID),
      is_new_bookmark: true,
      selection_appended: false,
    });
    const note = await t.bookmarks.getNote(result.note_id);
    expect(note?.body).toBe(
      [
        'A page about things.',
        'Source: [The guide](https://example.com/guide?utm_source=news#intro)',
        '> first line\n> second line',
        'Read this #Serverless and #aws-lambda, see https://x.test/#notatag',
      ].join('\n\n'),
    );
    expect(note?.tags).toEqual(['serverless', 'aws-lambda']);
  });

  it('falls back to the URL as title and truncates a long description to 500 characters', async () => {
    const { token } = await t.createUser();
    const result = await json(
      await t.save(token, { url: 'https://example.com/untitled', description: 'd'.repeat(900) }),
    );
    expect(result.bookmark.title).toBe('https://example.com/untitled');
    const note = await t.bookmarks.getNote(result.note_id);
    expect(note?.body.split('\n\n')[0]).toBe('d'.repeat(500));
  });

  it('asks for enrichment when the description is omitted', async () => {
    const { token } = await t.createUser();
    const before = t.stack.queues.enrichment.depth;
    const result = await json(await t.save(token, { url: 'https://enrich.example/page' }));
    expect(t.stack.queues.enrichment.depth).toBe(before + 1);
    expect(result.bookmark.icon).toBeNull();
  });
});

describe('saving a page already in the workspace', () => {
  it('reuses the note, appends the selection as another quote and adds tags', async () => {
    const { token } = await t.createUser();
    const first = await json(
      await t.save(token, {
        url: 'https://example.com/a?fbclid=1',
        selection: 'one',
        description: 'first description',
      }),
    );
    const again = await t.save(token, {
      url: 'HTTPS://EXAMPLE.COM:443/a#part',
      selection: 'two',
      comment: 'more #Later',
      description: 'ignored',
    });
    expect(again.status).toBe(200);
    const result = await json(again);
    expect(result).toMatchObject({ note_id: first.note_id, is_new_bookmark: false, selection_appended: true });
    expect(result.bookmark.id).toBe(first.bookmark.id);
    const note = await t.bookmarks.getNote(first.note_id);
    expect(note?.body).toBe(
      [
        'first description',
        'Source: [https://example.com/a?fbclid=1](https://example.com/a?fbclid=1)',
        '> one',
        '> two',
        'more #Later',
      ].join('\n\n'),
    );
    expect(note?.tags).toEqual(['later']);
  });

  it('does not append the same selection twice unless append is true', async () => {
    const { token } = await t.createUser();
    const url = 'https://example.com/retry';
    const { note_id } = await json(await t.save(token, { url, selection: 'quote me' }));
    const retry = await json(await t.save(token, { url, selection: 'quote me' }));
    expect(retry.selection_appended).toBe(false);
    const explicit = await json(await t.save(token, { url, selection: 'quote me', append: true }));
    expect(explicit.selection_appended).toBe(true);
    const note = await t.bookmarks.getNote(note_id);
    expect(note?.body.match(/> quote me/g)).toHaveLength(2);
  });

  it('reports selection_appended false when no selection was sent', async () => {
    const { token } = await t.createUser();
    await t.save(token, { url: 'https://example.com/plain' });
    const result = await json(await t.save(token, { url: 'https://example.com/plain' }));
    expect(result).toMatchObject({ is_new_bookmark: false, selection_appended: false });
  });

  it('keeps every selection of 20 parallel saves of one new URL, in one note', async () => {
    const { token } = await t.createUser();
    const url = 'https://example.com/concurrent';
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.save(token, { url, selection: `selection number ${i}` })),
    );
    const results = await Promise.all(responses.map(json));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    expect(results.filter((result) => result.is_new_bookmark)).toHaveLength(1);
    expect(new Set(results.map((result) => result.bookmark.id)).size).toBe(1);
    const note = await t.bookmarks.getNote(results[0].note_id);
    expect(note?.body.match(/> selection number \d+/g)?.sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `> selection number ${i}`).sort(),
    );
  });
});

describe('authentication', () => {
  it.each([
    ['missing', null],
    ['malformed prefix', 'ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
    ['bad checksum', 'gln_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'],
  ])('answers 401 with an Error body when the token is %s', async (_, token) => {
    const response = await t.save(token, { url: 'https://example.com' });
    expect(response.status).toBe(401);
    expectRateLimitHeaders(response);
    expect(response.headers.get('WWW-Authenticate')).toMatch(/^Bearer/);
    expect(typeof (await json(response)).detail).toBe('string');
  });

  it('answers 401 for a token that was revoked, and for an unknown well-formed token', async () => {
    const { token, tokenId } = await t.createUser();
    expect((await t.save(token, { url: 'https://example.com/ok' })).status).toBe(200);
    await t.accounts.revokeToken(tokenId);
    expect((await t.save(token, { url: 'https://example.com/ok' })).status).toBe(401);
    const other = await t.createUser();
    await t.accounts.revokeToken(other.tokenId);
    expect((await t.save(other.token, { url: 'https://example.com/ok' })).status).toBe(401);
  });

  it('answers 401 to two Authorization headers, even when both carry the valid token', async () => {
    const { token } = await t.createUser();
    const response = await rawRequest(
      'POST',
      '/api/v1/bookmarks/save',
      [
        ['Authorization', `Bearer ${token}`],
        ['Authorization', `Bearer ${token}`],
        ['Content-Type', 'application/json'],
      ],
      JSON.stringify({ url: 'https://example.com/twice' }),
    );
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body).detail).toMatch(/Ambiguous credentials/);
    expect(response.headers['ratelimit-limit']).toBe('120');
  });

  it('answers 401 before looking at the body', async () => {
    const response = await t.save(null, '{not json');
    expect(response.status).toBe(401);
  });
});

describe('validation', () => {
  it.each([
    ['a javascript: url', { url: 'javascript:alert(1)' }, ['body', 'url'], 'url_scheme'],
    ['an ftp: url', { url: 'ftp://example.com/file' }, ['body', 'url'], 'url_scheme'],
    ['a relative url', { url: '/relative/path' }, ['body', 'url'], 'url_parsing'],
    ['no url', {}, ['body', 'url'], 'missing'],
    ['a numeric url', { url: 42 }, ['body', 'url'], 'string_type'],
    ['a string append', { url: 'https://example.com', append: 'yes' }, ['body', 'append'], 'bool_type'],
    [
      'an overlong selection',
      { url: 'https://example.com', selection: 's'.repeat(20_001) },
      ['body', 'selection'],
      'string_too_long',
    ],
    ['an overlong url', { url: `https://example.com/${'p'.repeat(2100)}` }, ['body', 'url'], 'url_too_long'],
    // 736 characters, 2,305 once punycoded: a SITE#<host> key over DynamoDB's 2048 bytes was a 500.
    ['a host longer than DNS allows', { url: `https://${longInternationalHost()}/` }, ['body', 'url'], 'url_parsing'],
  ])('answers 422 HTTPValidationError for %s', async (_, body, loc, type) => {
    const { token } = await t.createUser();
    const response = await t.save(token, body);
    expect(response.status).toBe(422);
    expectRateLimitHeaders(response);
    const { detail } = await json(response);
    expect(detail).toContainEqual(expect.objectContaining({ loc, type, msg: expect.any(String) }));
  });

  it.each([
    ['not JSON', '{"url": ', 'json_invalid'],
    ['a JSON array', '["https://example.com"]', 'model_attributes_type'],
    ['empty', '', 'missing'],
  ])('answers 422 for a body that is %s', async (_, body, type) => {
    const { token } = await t.createUser();
    const response = await t.save(token, body);
    expect(response.status).toBe(422);
    const { detail } = await json(response);
    expect(detail[0]).toMatchObject({ loc: expect.arrayContaining(['body']), type });
  });
});

describe("a body over API Gateway's 10 MB", () => {
  it("answers 413 with a detail and the route's RateLimit headers at full quota", async () => {
    const { token } = await t.createUser();
    const response = await t.save(
      token,
      JSON.stringify({ url: 'https://example.com/huge', selection: 'x'.repeat(10 * 1024 * 1024) }),
    );
    expect(response.status).toBe(413);
    expect(await json(response)).toEqual({ detail: expect.any(String) });
    expectRateLimitHeaders(response);
    expect(response.headers.get('RateLimit-Remaining')).toBe('120');
  });
});

describe('request content type', () => {
  it.each([['text/plain'], ['application/x-www-form-urlencoded'], [null]])(
    'answers 422 to %s and saves nothing',
    async (contentType) => {
      const { token } = await t.createUser();
      const body = JSON.stringify({ url: 'https://example.com/typed' });
      const response = await rawRequest(
        'POST',
        '/api/v1/bookmarks/save',
        [
          ['Authorization', `Bearer ${token}`],
          ...(contentType ? [['Content-Type', contentType] as [string, string]] : []),
        ],
        body,
      );
      expect(response.status).toBe(422);
      expect(JSON.parse(response.body)).toEqual({
        detail: [
          { loc: ['header', 'content-type'], msg: 'Content-Type should be application/json', type: 'content_type' },
        ],
      });
      expect((await json(await t.save(token, body))).is_new_bookmark).toBe(true);
    },
  );

  it.each(['application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json'])(
    'accepts %s',
    async (contentType) => {
      const { token } = await t.createUser();
      expect((await t.save(token, { url: 'https://example.com/json' }, { 'Content-Type': contentType })).status).toBe(
        200,
      );
    },
  );

  it('decodes the charset the Content-Type declares, refuses bytes it cannot decode, and 415s an unknown charset (issue 21)', async () => {
    const { token } = await t.createUser();
    const latin1 = Buffer.from(JSON.stringify({ url: 'https://example.com/cafe', title: 'café' }), 'latin1');
    const send = (contentType: string) =>
      fetch(`${t.stack.baseUrl}/api/v1/bookmarks/save`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType },
        body: latin1,
      });
    const saved = await send('application/json; charset=iso-8859-1');
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { bookmark: { title: string } }).bookmark.title).toBe('café');
    const undecodable = await send('application/json');
    expect(undecodable.status).toBe(422);
    expect(((await undecodable.json()) as { detail: unknown[] }).detail[0]).toMatchObject({
      loc: ['body', 46],
      type: 'json_invalid',
    });
    const unknown = await send('application/json; charset=x-klingon');
    expect(unknown.status).toBe(415);
    expect(await unknown.json()).toEqual({ detail: 'Unsupported charset "x-klingon": send UTF-8' });
  });

  it('answers 401 before looking at the content type', async () => {
    expect((await t.save(null, { url: 'https://example.com/json' }, { 'Content-Type': 'text/plain' })).status).toBe(
      401,
    );
  });
});

describe('what is stored', () => {
  it('drops credentials from the URL, so they never reach a feed', async () => {
    const { token } = await t.createUser();
    const result = await json(await t.save(token, { url: 'http://user:secret@example.com/private' }));
    expect(result.bookmark.url).toBe('http://example.com/private');
    expect((await t.bookmarks.getNote(result.note_id))?.body).not.toContain('secret');
  });

  it('replaces lone surrogates with U+FFFD', async () => {
    const { token } = await t.createUser();
    const body =
      '{"url": "https://example.com/surrogates", "title": "t\\ud800", "selection": "s\\udc00", "comment": "c\\ud800"}';
    const result = await json(await t.save(token, body));
    expect(result.bookmark.title).toBe('t\uFFFD');
    expect((await t.bookmarks.getNote(result.note_id))?.body).toContain('> s\uFFFD\n\nc\uFFFD');
  });
});

describe('note cap', () => {
  it('answers 402 NoteLimitError at the cap and writes nothing, while saved URLs still work', async () => {
    const { token, user } = await t.createUser({ noteCap: 2 });
    await t.save(token, { url: 'https://example.com/1', selection: 'a' });
    await t.save(token, { url: 'https://example.com/2' });
    const itemsBefore = await countItems();
    const response = await t.save(token, { url: 'https://example.com/3' });
    expect(response.status).toBe(402);
    expectRateLimitHeaders(response);
    expect(await json(response)).toEqual({
      detail: {
        code: 'note_limit',
        message: expect.stringContaining('2 notes'),
        hint: expect.any(String),
        used: 2,
        limit: 2,
      },
    });
    expect(await countItems()).toBe(itemsBefore);
    const again = await t.save(token, { url: 'https://example.com/1', selection: 'b' });
    expect(again.status).toBe(200);
    expect((await t.accounts.getUser(user.id))?.noteCount).toBe(2);
  });

  it('states the free plan cap of 1,000 notes in the message', async () => {
    const { token, user } = await t.createUser();
    await t.table.doc.send(
      new (await import('@aws-sdk/lib-dynamodb')).UpdateCommand({
        TableName: t.table.tableName,
        Key: { pk: `USER#${user.id}`, sk: 'USER' },
        UpdateExpression: 'SET noteCount = :cap',
        ExpressionAttributeValues: { ':cap': 1000 },
      }),
    );
    const response = await t.save(token, { url: 'https://example.com/over' });
    expect(response.status).toBe(402);
    const { detail } = await json(response);
    expect(detail).toMatchObject({ used: 1000, limit: 1000 });
    expect(detail.message).toContain('1,000');
  });

  it('lets exactly one of 10 parallel new saves at cap - 1 create a note', async () => {
    const { token, user } = await t.createUser({ noteCap: 5 });
    for (let i = 0; i < 4; i++) await t.save(token, { url: `https://example.com/fill/${i}` });
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.save(token, { url: `https://example.com/race/${i}` }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 402)).toHaveLength(9);
    expect((await t.accounts.getUser(user.id))?.noteCount).toBe(5);
  });
});

describe('CORS for the browser extension', () => {
  it('answers the preflight and exposes the rate-limit headers on answers', async () => {
    const preflight = await fetch(`${t.stack.baseUrl}/api/v1/bookmarks/save`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'chrome-extension://abc',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(preflight.headers.get('Access-Control-Allow-Headers')).toBe('Authorization,Content-Type,Idempotency-Key');
    expect(preflight.headers.get('Access-Control-Allow-Methods')).toMatch(/POST/);
    const response = await t.save(null, {}, { Origin: 'chrome-extension://abc' });
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Access-Control-Expose-Headers')).toMatch(/RateLimit-Remaining/);
    // A browser client may read the bearer challenge of a refused token.
    expect(response.status).toBe(401);
    expect(response.headers.get('Access-Control-Expose-Headers')!.split(/,\s*/)).toContain('WWW-Authenticate');
  });
});

async function countItems(): Promise<number> {
  const { Items } = await t.table.doc.send(
    new ScanCommand({
      TableName: t.table.tableName,
      FilterExpression: 'NOT begins_with(pk, :rl)',
      ExpressionAttributeValues: { ':rl': 'RL#' },
    }),
  );
  return Items?.length ?? 0;
}

describe('routes that do not exist', () => {
  it('answers an unknown path with 404 in the contract shape, as the API Gateway response does', async () => {
    const response = await fetch(`${t.stack.baseUrl}/api/v1/nothing`);
    expect(response.status).toBe(404);
    expect(await json(response)).toEqual({ detail: 'Not Found' });
  });

  it.each(['GET', 'PUT', 'DELETE', 'HEAD'])(
    'answers %s on the save route with 405 and the methods it takes',
    async (method) => {
      const response = await fetch(`${t.stack.baseUrl}/api/v1/bookmarks/save`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('Allow')).toBe('POST, OPTIONS');
      if (method !== 'HEAD') expect(await json(response)).toEqual({ detail: 'Method Not Allowed' });
    },
  );

  it('answers a method a feed route does not take with 405, listing GET, HEAD and the preflight', async () => {
    const response = await fetch(`${t.stack.baseUrl}/api/v2/publisher/feeds/${randomUUID()}/rss`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('GET, HEAD, OPTIONS');
    expect(await json(response)).toEqual({ detail: 'Method Not Allowed' });
  });
});

describe('configured CORS origins', () => {
  it('allows only the configured extension origins', async () => {
    const restricted = await startTestStack({
      CORS_ALLOWED_ORIGINS: 'chrome-extension://gleaner,moz-extension://gleaner',
    });
    try {
      const preflight = (origin: string) =>
        fetch(`${restricted.stack.baseUrl}/api/v1/bookmarks/save`, {
          method: 'OPTIONS',
          headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
        });
      expect((await preflight('moz-extension://gleaner')).headers.get('Access-Control-Allow-Origin')).toBe(
        'moz-extension://gleaner',
      );
      expect((await preflight('https://evil.example')).headers.get('Access-Control-Allow-Origin')).toBeNull();
      const answer = await restricted.save(null, {}, { Origin: 'chrome-extension://gleaner' });
      expect(answer.headers.get('Access-Control-Allow-Origin')).toBe('chrome-extension://gleaner');
      expect(
        (await restricted.save(null, {}, { Origin: 'https://evil.example' })).headers.get(
          'Access-Control-Allow-Origin',
        ),
      ).toBeNull();
    } finally {
      await restricted.stop();
    }
  });
});

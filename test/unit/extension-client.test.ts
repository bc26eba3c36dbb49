import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type * as z from 'zod/mini';
import { badgeFor } from '../../extension/src/badge';
import { cleanSelection, fitUrl, isSavable, tooLongMessage } from '../../extension/src/page-text';
import { type Delivery, EMPTY_OUTBOX, NO_ANSWER, type OutboxItem, type OutboxState } from '../../extension/src/queue';
import { describeDetail, postSave, retryAfter, saveEndpoint, testConnection } from '../../extension/src/save-api';
import { checkServerUrl, checkToken, originPattern } from '../../extension/src/settings';
import {
  deliveryMessage,
  failureMessage,
  lastSaveOf,
  notificationFor,
  queueEntryText,
  saveStatus,
} from '../../extension/src/wording';
import type * as contract from '../../functions/core/contract/contract';
import type { saveRequestSchema } from '../../functions/core/save/save-request';
import { URL_MAX_LENGTH } from '../../functions/core/save/url';
import { mintToken } from '../../functions/core/token/token';
import type * as wire from '../../functions/core/wire/save';
import { SAVE_PATH, SAVE_URL_MAX_LENGTH } from '../../functions/core/wire/save';
import { routes } from '../../functions/platform/routes';

/** The extension's server client, settings checks and page helpers, outside the browser. */

describe('the save client', () => {
  let server: Server;
  let baseUrl: string;
  let received: { headers: IncomingHttpHeaders; body: string; url: string }[] = [];
  let reply: { status: number; headers?: Record<string, string>; body: string } = { status: 200, body: '{}' };

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body, url: request.url ?? '' });
        response.writeHead(reply.status, { 'Content-Type': 'application/json', ...reply.headers }).end(reply.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prod`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const request = {
    url: 'https://example.com/',
    title: 'Example',
    selection: 'a\nb',
    comment: '#tag',
    description: null,
  };

  it('posts the save as JSON with the bearer token and the idempotency key, under the stage path', async () => {
    received = [];
    reply = {
      status: 200,
      headers: { 'RateLimit-Remaining': '7', 'RateLimit-Reset': '42' },
      body: JSON.stringify({
        bookmark: { id: 'b', url: 'https://example.com/', title: 'Example' },
        note_id: 'n',
        is_new_bookmark: true,
        selection_appended: false,
      }),
    };
    const answer = await postSave(
      fetch,
      { serverUrl: baseUrl, token: 'gln_x' },
      { ...request, append: false },
      'key-1',
    );
    expect(answer).toMatchObject({
      kind: 'saved',
      result: { note_id: 'n' },
      rateLimit: { remaining: 7, resetSeconds: 42 },
    });
    expect(received[0]).toMatchObject({
      url: '/prod/api/v1/bookmarks/save',
      headers: { authorization: 'Bearer gln_x', 'content-type': 'application/json', 'idempotency-key': 'key-1' },
    });
    expect(JSON.parse(received[0]!.body)).toEqual({ ...request, append: false });
  });

  it('reads an error answer’s detail and Retry-After', async () => {
    reply = {
      status: 429,
      headers: { 'Retry-After': '12' },
      body: JSON.stringify({ detail: { code: 'rate_limited', message: 'Slow down', retry_after: 12 } }),
    };
    expect(await postSave(fetch, { serverUrl: baseUrl, token: 'gln_x' }, request)).toMatchObject({
      kind: 'refused',
      status: 429,
      retryAfterSeconds: 12,
      detail: { code: 'rate_limited' },
    });
  });

  it('reads a Retry-After given as an HTTP date, as a proxy may send it', () => {
    const now = Date.parse('2026-11-28T10:00:00Z');
    expect(retryAfter('Sat, 28 Nov 2026 10:02:00 GMT', now)).toBe(120);
    expect(retryAfter('Sat, 28 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfter(' 7 ', now)).toBe(7);
    expect(retryAfter('soon', now)).toBeNull();
    expect(retryAfter(null, now)).toBeNull();
  });

  it('takes a 200 that is not a save result (a captive portal, a proxy) as a server error', async () => {
    reply = { status: 200, body: '<html>Sign in to the Wi-Fi</html>' };
    expect(await postSave(fetch, { serverUrl: baseUrl, token: 'gln_x' }, request)).toMatchObject({
      kind: 'refused',
      status: 502,
    });
  });

  it('reports a server that does not answer as unreachable, without the browser’s words', async () => {
    expect(await postSave(fetch, { serverUrl: 'http://127.0.0.1:9', token: 'gln_x' }, request)).toEqual({
      kind: 'unreachable',
    });
  });

  it.each([
    [422, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] }, 'accepted'],
    [401, { detail: 'Invalid or revoked token' }, 'refused'],
    [429, { detail: { code: 'rate_limited', message: 'x', retry_after: 3 } }, 'rate-limited'],
    [404, { message: 'Not Found' }, 'not-gleaner'],
  ])('tests the connection with an empty save: %i → %s', async (status, body, kind) => {
    received = [];
    reply = { status, body: JSON.stringify(body) };
    expect(await testConnection(fetch, { serverUrl: baseUrl, token: 'gln_x' })).toMatchObject({ kind });
    expect(received[0]?.body).toBe('{}');
  });

  it('words error details for a person', () => {
    expect(describeDetail('Invalid token')).toBe('Invalid token');
    expect(
      describeDetail([
        { loc: ['body', 'title'], msg: 'String should have at most 1000 characters', type: 'string_too_long' },
      ]),
    ).toBe('title: String should have at most 1000 characters');
    expect(describeDetail({ code: 'note_limit', message: 'Note limit reached' })).toBe('Note limit reached');
    expect(describeDetail(null)).toBeNull();
  });

  it('builds the save address from a BaseUrl with or without a trailing slash', () => {
    expect(saveEndpoint('https://d1.cloudfront.net/')).toBe('https://d1.cloudfront.net/api/v1/bookmarks/save');
    expect(saveEndpoint('https://api.example/prod')).toBe('https://api.example/prod/api/v1/bookmarks/save');
  });
});

describe('the options’ checks', () => {
  it.each([
    ['https://d1234.cloudfront.net/', 'https://d1234.cloudfront.net'],
    [
      '  https://abc.execute-api.eu-west-1.amazonaws.com/prod/ ',
      'https://abc.execute-api.eu-west-1.amazonaws.com/prod',
    ],
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['http://localhost:3000/', 'http://localhost:3000'],
  ])('accepts the server address %s', (input, value) => {
    expect(checkServerUrl(input)).toEqual({ ok: true, value });
  });

  it.each([
    ['', 'Enter the server address'],
    ['gleaner.example', 'not a web address'],
    ['http://gleaner.example', 'https://'],
    ['ftp://gleaner.example', 'https://'],
    ['https://user:pw@gleaner.example', 'without a user name'],
  ])('refuses the server address %j', (input, message) => {
    const checked = checkServerUrl(input);
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.message).toContain(message);
  });

  it('checks a token by the server’s rule before it is stored', () => {
    const token = mintToken();
    expect(checkToken(` ${token}\n`)).toEqual({ ok: true, value: token });
    expect(checkToken('ghp_abc')).toMatchObject({ ok: false, message: expect.stringContaining('starts with “gln_”') });
    expect(checkToken(token.slice(0, 20))).toMatchObject({
      ok: false,
      message: expect.stringContaining('copied whole'),
    });
    expect(checkToken(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'))).toMatchObject({
      ok: false,
      message: expect.stringContaining('checksum'),
    });
  });

  it('asks for the server’s origin only (match patterns carry no port)', () => {
    expect(originPattern('http://127.0.0.1:3000')).toBe('http://127.0.0.1/*');
    expect(originPattern('https://d1234.cloudfront.net/prod')).toBe('https://d1234.cloudfront.net/*');
  });
});

describe('page helpers', () => {
  it('keeps a selection’s line breaks and drops blank edges', () => {
    expect(cleanSelection('\n\n  first line  \r\nsecond line\t\n\n')).toBe('  first line\nsecond line');
    expect(cleanSelection(' \n ')).toBeNull();
  });

  it('saves web pages only', () => {
    expect(isSavable('https://example.com/a.pdf')).toBe(true);
    expect(isSavable('chrome://extensions/')).toBe(false);
    expect(isSavable('about:debugging')).toBe(false);
    expect(isSavable(undefined)).toBe(false);
  });
});

describe('the toolbar badge', () => {
  const item = (overrides: Partial<OutboxItem> = {}): OutboxItem => ({
    id: 'i',
    createdAt: 0,
    source: 'command',
    request: { url: 'https://example.com', title: null, selection: null, comment: null, description: null },
    attempts: 1,
    nextAttemptAt: 0,
    held: false,
    problem: null,
    ...overrides,
  });

  it('says pending, needs attention, and for a moment saved or refused', () => {
    expect(badgeFor(EMPTY_OUTBOX, { kind: 'saved' })).toMatchObject({ text: '✓' });
    expect(badgeFor(EMPTY_OUTBOX, { kind: 'refused', reason: 'url: too long' })).toMatchObject({
      text: '✕',
      title: 'Gleaner refused a save: url: too long',
    });
    expect(badgeFor(EMPTY_OUTBOX, null)).toMatchObject({ text: '' });
    // A save on its way counts as pending, and pending outranks a moment's ✓.
    expect(
      badgeFor({ ...EMPTY_OUTBOX, items: [item({ sendingSince: 1 }), item({ id: 'j' })] }, { kind: 'saved' }),
    ).toMatchObject({
      text: '2',
      title: expect.stringContaining('2 saves pending'),
    });
    expect(
      badgeFor({ ...EMPTY_OUTBOX, items: [item({ held: true, problem: 'Note limit reached' })] }, null),
    ).toMatchObject({ text: '!', title: expect.stringContaining('Note limit reached') });
    expect(badgeFor({ ...EMPTY_OUTBOX, tokenRefused: true, items: [item()] }, null)).toMatchObject({
      text: '!',
      title: expect.stringContaining('token was refused'),
    });
  });
});

describe('the save route’s wire types, shared with the extension', () => {
  it('match the server’s contract schemas', () => {
    expectTypeOf<contract.BookmarkSaveResult>().toExtend<wire.BookmarkSaveResult>();
    expectTypeOf<wire.SaveBookmarkBody>().toExtend<z.input<typeof saveRequestSchema>>();
    expectTypeOf<contract.HTTPValidationError['detail'][number]>().toExtend<wire.ValidationIssue>();
    expectTypeOf<contract.NoteLimitError['detail']>().toExtend<wire.ErrorDetail>();
    expect(SAVE_URL_MAX_LENGTH).toBe(URL_MAX_LENGTH);
    expect(routes.some((route) => route.path === SAVE_PATH && route.method === 'POST')).toBe(true);
  });
});

describe('what the extension tells a person', () => {
  const item: OutboxItem = {
    id: 'i',
    createdAt: 0,
    source: 'context-menu',
    request: { url: 'https://example.com/long', title: 'Long', selection: null, comment: null, description: null },
    attempts: 1,
    nextAttemptAt: 0,
    held: false,
    problem: null,
  };

  it('names a refused field once in a notification', () => {
    const dropped: Delivery = {
      kind: 'dropped',
      item,
      reason: describeDetail([
        { loc: ['body', 'url'], msg: 'URL should have at most 2048 characters', type: 'string_too_long' },
      ])!,
      field: 'url',
    };
    expect(notificationFor(dropped)).toEqual({
      id: 'dropped-i',
      title: 'Gleaner refused a save: Long',
      message: 'url: URL should have at most 2048 characters',
    });
  });

  it('says a save that got no answer will be confirmed by itself, in the browser’s words nowhere', () => {
    expect(deliveryMessage({ kind: 'queued', item, reason: NO_ANSWER, retryAt: 1 })).toBe(
      'No answer yet; it will be confirmed by itself',
    );
    expect(deliveryMessage({ kind: 'queued', item, reason: 'Server error 503', retryAt: 1 })).toBe(
      'Queued: Server error 503. Gleaner sends it by itself.',
    );
  });

  it('follows a save in the popup from waiting to confirmed, and finds it again when the popup reopens', () => {
    const waiting: OutboxState = {
      ...EMPTY_OUTBOX,
      items: [
        { ...item, id: 'mine', problem: NO_ANSWER },
        { ...item, id: 'next', problem: null },
      ],
    };
    expect(saveStatus(waiting, 'mine')).toEqual({ text: NO_ANSWER, tone: 'warn' });
    expect(queueEntryText(waiting, waiting.items[1]!, 0)).toBe('Waiting behind an earlier save of this page');
    const sending = { ...waiting, items: [{ ...waiting.items[0]!, problem: null, sendingSince: 5 }] };
    expect(saveStatus(sending, 'mine')).toEqual({ text: 'Saving…', tone: '' });
    expect(queueEntryText(sending, sending.items[0]!, 0)).toBe('Sending…');

    const result = { bookmark: { id: 'b', url: item.request.url, title: null }, note_id: 'n' };
    const confirmed: OutboxState = {
      ...EMPTY_OUTBOX,
      settled: [
        {
          id: 'mine',
          url: item.request.url,
          at: 1_000,
          waited: true,
          outcome: { kind: 'saved', result: { ...result, is_new_bookmark: false, selection_appended: true } },
        },
        {
          id: 'elsewhere',
          url: 'https://example.com/other',
          at: 1_000,
          waited: true,
          outcome: { kind: 'dropped', reason: 'url: too long' },
        },
      ],
    };
    expect(saveStatus(confirmed, 'mine')).toEqual({ text: 'Added to your note', tone: 'ok' });
    expect(saveStatus(confirmed, 'elsewhere')).toEqual({ text: 'Not saved: url: too long', tone: 'bad' });
    expect(saveStatus(confirmed, 'unknown')).toBeNull();

    // Reopened over the page: the save still waiting, else the one that waited and was settled in the last hour.
    expect(lastSaveOf(waiting, `${item.request.url}#section`, 2_000)).toBe('next');
    expect(lastSaveOf(confirmed, item.request.url, 2_000)).toBe('mine');
    expect(lastSaveOf(confirmed, item.request.url, 1_000 + 3_600_000)).toBeNull();
    expect(lastSaveOf(confirmed, 'https://example.com/unsaved', 2_000)).toBeNull();
  });

  it('says a full storage is full', () => {
    expect(failureMessage(new Error('QUOTA_BYTES quota exceeded'))).toContain('storage for Gleaner is full');
    expect(failureMessage(new Error('Could not establish connection'))).toBe('Could not establish connection');
  });
});

describe('addresses too long to save', () => {
  const path = 'https://example.com/search';
  it('saves an address that fits as it is', () => {
    expect(fitUrl(`${path}?q=${'x'.repeat(SAVE_URL_MAX_LENGTH - path.length - 3)}`)).toEqual({ kind: 'fits' });
  });

  it('offers the address without its query string when that fits', () => {
    const long = `${path}?q=${'x'.repeat(3000)}#top`;
    const fit = fitUrl(long);
    expect(fit).toEqual({ kind: 'without-query', url: path, length: long.length });
    expect(tooLongMessage(fit as Exclude<typeof fit, { kind: 'fits' }>)).toBe(
      'This address is too long (3,033 characters; Gleaner saves addresses of at most 2,048). Without its query string it fits.',
    );
  });

  it('says why when even the address without its query string is too long', () => {
    const fit = fitUrl(`https://example.com/${'p'.repeat(2100)}?q=1`);
    expect(fit).toMatchObject({ kind: 'too-long', shortest: 2120 });
    expect(tooLongMessage(fit as Exclude<typeof fit, { kind: 'fits' }>)).toContain(
      '2,120 even without its query string, so this page cannot be saved',
    );
  });
});

import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractFetch } from '../support/contract';
import { json, startTestStack, type TestStack } from '../support/local-stack';

/** The local stand-in for API Gateway with what real clients send it: odd names, bad bytes, broken requests. */

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(() => t.stop());

const feedPath = (id: string) => `/api/v2/publisher/feeds/${id}/rss`;

/** Writes `raw` on a plain socket, half-closes it, and resolves with everything the server sent until it closed. */
function rawExchange(raw: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(t.stack.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body });
    });
    socket.end(raw);
  });
}

describe('names that are also JavaScript object members', () => {
  it.each(['__proto__', 'constructor', 'hasOwnProperty', 'toString'])(
    'treats a query parameter and a header named %s as any other',
    async (name) => {
      const response = await contractFetch(`${t.stack.baseUrl}${feedPath(randomUUID())}?${name}=1&${name}=2`, {
        headers: { [name]: 'x' },
      });
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ detail: { code: 'not_found', message: 'Feed not found' } });
    },
  );

  it('passes such a header on to the handler like any other', async () => {
    const { token } = await t.createUser();
    const response = await t.save(token, { url: 'https://example.com/proto' }, {
      __proto__: 'x',
      constructor: 'y',
    } as unknown as Record<string, string>);
    expect(response.status).toBe(200);
  });
});

describe('a path parameter with bad percent-encoding', () => {
  it('reaches the handler as written and answers 422, not 502', async () => {
    const response = await contractFetch(`${t.stack.baseUrl}${feedPath('%E0%A4%A')}`);
    expect(response.status).toBe(422);
    expect(await json(response)).toEqual({
      detail: [{ loc: ['path', 'feed_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }],
    });
  });
});

describe('requests Node cannot parse are answered with a detail, as API Gateway does', () => {
  it('answers a 100 KB header with 431', async () => {
    const answer = await rawExchange(
      `GET ${feedPath(randomUUID())} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100 * 1024)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expect(answer.headers).toMatch(/\r\nContent-Type: application\/json\r\n/i);
    expect(JSON.parse(answer.body)).toEqual({ detail: 'Request Header Fields Too Large' });
  });

  it('answers a method HTTP does not know with 400', async () => {
    const answer = await rawExchange(`BREW ${feedPath(randomUUID())} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ detail: 'Bad Request' });
  });

  it('answers a body shorter than its Content-Length with 400 once the client stops sending, and saves nothing', async () => {
    const { token } = await t.createUser();
    const body = JSON.stringify({ url: 'https://example.com/short-body' });
    const answer = await rawExchange(
      `POST /api/v1/bookmarks/save HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 50}\r\n\r\n${body}`,
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ detail: 'Bad Request' });
    expect((await json(await t.save(token, body))).is_new_bookmark).toBe(true);
  });
});

describe('the loopback addresses', () => {
  it('answers on ::1 as on 127.0.0.1, since the banner and the web pages name localhost', async () => {
    const { port } = new URL(t.stack.baseUrl);
    const response = await fetch(`http://[::1]:${port}${feedPath(randomUUID())}`);
    expect(response.status).toBe(404);
    expect(new URL(t.stack.webBaseUrl).hostname).toBe('localhost');
  });
});

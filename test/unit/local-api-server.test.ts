import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { routes } from '../../functions/platform/routes';
import { createApiServer, type LocalRoute } from '../../local/api-server';
import { repositoryRoot, waitFor } from '../support/processes';

/** The local stand-in for API Gateway, on a real socket, with a stand-in handler (issue 21). */

const saveRoute = routes.find((route) => route.id === 'SaveBookmark')!;
const logged: string[] = [];
let server: Server | undefined;

afterEach(async () => {
  logged.splice(0);
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
});

async function serve(localRoutes: () => readonly LocalRoute[] | null): Promise<number> {
  server = createApiServer({ routes: localRoutes, corsOrigins: ['*'], log: (line) => logged.push(line) });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A handler that answers after a moment, so what follows its request arrives while it runs. */
const slowSave: LocalRoute = {
  definition: saveRoute,
  handler: async () => {
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"saved":true}' };
  },
  gatewayHeaders: () => ({ 'RateLimit-Policy': '120;w=60' }),
};

/** Everything the server writes back to these raw bytes, until it closes the connection. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, 3000);
  });
}

describe('the local API server', () => {
  it('answers 503 with Retry-After, not 404, while the handlers are still loading', async () => {
    let loaded: readonly LocalRoute[] | null = null;
    const port = await serve(() => loaded);
    for (const path of ['/api/v1/bookmarks/save', '/openapi.json']) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST' });
      expect(response.status).toBe(503);
      expect(response.headers.get('Retry-After')).toBe('1');
      expect(await response.json()).toEqual({ detail: 'Starting up; retry in 1 s' });
    }
    loaded = [slowSave];
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/bookmarks/save`, { method: 'POST' })).status).toBe(200);
  });

  it('answers a request with a short Content-Length once, then the bytes after it with one 400, and closes', async () => {
    const port = await serve(() => [slowSave]);
    const body = '{"url":"https://example.com/"}';
    const received = await exchange(
      port,
      `POST /api/v1/bookmarks/save HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n${body}`,
    );
    const statuses = [...received.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => match[1]);
    expect(statuses).toEqual(['200', '400']);
    expect(received).toContain('{"saved":true}');
    expect(logged.join('\n')).not.toMatch(/ERR_HTTP_HEADERS_SENT|server error/);
  });

  it("sends the route's RateLimit headers with a 405", async () => {
    const port = await serve(() => [slowSave]);
    const response = await fetch(`http://127.0.0.1:${port}/api/v1/bookmarks/save`, { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(response.headers.get('RateLimit-Policy')).toBe('120;w=60');
  });

  it('answers 500 to the request whose work left an error uncaught, logs it, and serves on (npm start never exits for one)', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/stray-error-server.ts'], {
      cwd: repositoryRoot,
      stdio: 'pipe',
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitFor(() => /port \d+/.test(output));
      const port = /port (\d+)/.exec(output)![1];
      for (const kind of ['rejection', 'throw', 'rejection']) {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/bookmarks/save?kind=${kind}`, { method: 'POST' });
        expect(response.status).toBe(500);
        expect(await response.json()).toEqual({ detail: 'Internal Server Error' });
      }
      expect(output).toContain('unhandled error: Error: a rejection no one awaits');
      expect(output).toContain('unhandled error: Error: thrown in a timer');
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  });
});

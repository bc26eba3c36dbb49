import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { createSecureContext } from 'node:tls';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSafeFetcher,
  DEFAULT_USER_AGENT,
  FetchFailedError,
  FetchRefusedError,
  isPublicUnicast,
  parseFetchAllow,
  type ResolvedAddress,
  type SafeFetchOptions,
} from '../../functions/adapters/safe-fetch';

interface Fixture {
  port: number;
  origin: string;
  /** Requests the server received: path and headers. */
  requests: { path: string; headers: IncomingHttpHeaders }[];
}

const servers: (Server | TlsServer)[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }
});

async function listen(server: Server | TlsServer): Promise<number> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

async function serve(handler: RequestListener): Promise<Fixture> {
  const requests: Fixture['requests'] = [];
  const port = await listen(
    createServer((req, res) => {
      requests.push({ path: req.url ?? '', headers: req.headers });
      handler(req, res);
    }),
  );
  return { port, origin: `http://127.0.0.1:${port}`, requests };
}

function html(body: string): RequestListener {
  return (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
}

/** A fetcher for which only the given fixtures are exempt, as GLEANER_FETCH_ALLOW does locally. */
function fetcherFor(fixtures: Fixture[], options: SafeFetchOptions = {}) {
  return createSafeFetcher({ allow: fixtures.map(({ port }) => `127.0.0.1:${port}`), ...options });
}

function lookupFrom(table: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the fetch should have failed'),
    (error: unknown) => error,
  );
}

async function refusal(promise: Promise<unknown>): Promise<FetchRefusedError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(FetchRefusedError);
  return error as FetchRefusedError;
}

async function failed(promise: Promise<unknown>): Promise<FetchFailedError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(FetchFailedError);
  return error as FetchFailedError;
}

describe('isPublicUnicast', () => {
  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '2002:808:808::1', // 6to4 of 8.8.8.8
  ])('accepts %s', (address) => {
    expect(isPublicUnicast(address)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '0.0.0.0',
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1',
    '::',
    '::1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'fec0::1', // deprecated site-local
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe', // mapped 169.254.169.254
    '::7f00:1', // deprecated IPv4-compatible ::127.0.0.1
    '64:ff9b::a00:1', // NAT64 of 10.0.0.1
    '64:ff9b:1::a00:1', // local-use NAT64 prefix
    '2002:a00:1::1', // 6to4 of 10.0.0.1
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    '2001:db8::1',
    'not-an-address',
    '0x7f000001', // only canonical address text counts
    '127.1',
  ])('refuses %s', (address) => {
    expect(isPublicUnicast(address)).toBe(false);
  });
});

describe('parseFetchAllow', () => {
  it('splits on commas and spaces and normalises host and port', () => {
    expect(parseFetchAllow(' 127.0.0.1:8081, [0:0::1]:8082 Fixture.TEST:80')).toEqual([
      '127.0.0.1:8081',
      '[::1]:8082',
      'fixture.test:80',
    ]);
  });

  it('is empty when the variable is unset or blank', () => {
    expect(parseFetchAllow(undefined)).toEqual([]);
    expect(parseFetchAllow('  ')).toEqual([]);
  });

  it.each(['127.0.0.1', 'http://127.0.0.1:8081', '127.0.0.1:80/x', ':8081'])('rejects %j', (entry) => {
    expect(() => parseFetchAllow(entry)).toThrow(/host:port/);
  });
});

describe('createSafeFetcher policy', () => {
  it.each(['ftp://example.com/file', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,<p>x</p>'])(
    'refuses the scheme of %s',
    async (url) => {
      const error = await refusal(createSafeFetcher().fetch(url));
      expect(error.reason).toBe('scheme');
      expect(error.retryable).toBe(false);
    },
  );

  it('refuses text that is not a URL', async () => {
    expect((await refusal(createSafeFetcher().fetch('not a url'))).reason).toBe('url');
  });

  it.each([
    'http://example.com:8080/',
    'https://example.com:8443/',
    'http://example.com:22/',
    'http://example.com:6379/',
  ])('refuses %s by port before resolving the name', async (url) => {
    const { lookup, calls } = lookupFrom({ 'example.com': ['93.184.216.34'] });
    expect((await refusal(createSafeFetcher({ lookup }).fetch(url))).reason).toBe('port');
    expect(calls).toEqual([]);
  });

  it('refuses URLs with credentials even for an exempt fixture', async () => {
    const fixture = await serve(html('secret'));
    const error = await refusal(fetcherFor([fixture]).fetch(`http://user:pass@127.0.0.1:${fixture.port}/`));
    expect(error.reason).toBe('credentials');
    expect(error.message).not.toContain('pass');
    expect(fixture.requests).toEqual([]);
  });

  it('normalises the numeric IPv4 spellings to dotted quad (WHATWG URL)', () => {
    for (const host of ['2130706433', '0x7f000001', '0177.0.0.1', '127.1', '0x7f.1']) {
      expect(new URL(`http://${host}/`).hostname).toBe('127.0.0.1');
    }
    expect(new URL('http://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });

  // The port rule is lifted for the fixture's port, so only the address rule stands between these URLs
  // and a live server on 127.0.0.1: a single request reaching it would show up in `requests`.
  it.each([
    '127.0.0.1',
    'localhost',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '0.0.0.0',
    '[::1]',
    '[fc00::1]',
    '[fe80::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '2130706433',
    '0x7f000001',
    '0177.0.0.1',
    '127.1',
  ])('refuses http://%s/ without connecting', async (host) => {
    const fixture = await serve(html('internal'));
    // `localhost` goes through the real resolver (/etc/hosts); literals must not be resolved at all.
    const { lookup, calls } = lookupFrom({});
    const fetcher = createSafeFetcher({
      allowedPorts: [fixture.port],
      lookup: host === 'localhost' ? undefined : lookup,
    });
    const error = await refusal(fetcher.fetch(`http://${host}:${fixture.port}/`));
    expect(error.reason).toBe('address');
    expect(calls).toEqual([]);
    expect(fixture.requests).toEqual([]);
  });

  it('resolves a name once and refuses it when its address is private', async () => {
    const fixture = await serve(html('internal'));
    const { lookup, calls } = lookupFrom({ 'intranet.test': ['10.1.2.3'] });
    const fetcher = createSafeFetcher({ lookup, allowedPorts: [fixture.port] });
    expect((await refusal(fetcher.fetch(`http://intranet.test:${fixture.port}/`))).reason).toBe('address');
    expect(calls).toEqual(['intranet.test']);
  });

  it('refuses a name when any of its addresses is not public', async () => {
    const { lookup } = lookupFrom({ 'mixed.test': ['93.184.216.34', '2606:2800:220:1::1', '127.0.0.1'] });
    const error = await refusal(createSafeFetcher({ lookup }).fetch('http://mixed.test/'));
    expect(error.reason).toBe('address');
    expect(error.message).toContain('127.0.0.1');
  });

  it('exempts the URL host:port, so a name resolving to an exempt address is still refused', async () => {
    const fixture = await serve(html('internal'));
    const { lookup } = lookupFrom({ 'fixture.test': ['127.0.0.1'] });
    const fetcher = fetcherFor([fixture], { lookup, allowedPorts: [fixture.port] });
    expect((await refusal(fetcher.fetch(`http://fixture.test:${fixture.port}/`))).reason).toBe('address');
    expect(fixture.requests).toEqual([]);
  });

  it('exempts exactly the listed port', async () => {
    const exempt = await serve(html('exempt'));
    const other = await serve(html('other'));
    const fetcher = fetcherFor([exempt]);
    expect((await fetcher.fetch(`${exempt.origin}/`)).body.toString()).toBe('exempt');
    expect((await refusal(fetcher.fetch(`${other.origin}/`))).reason).toBe('port');
    expect(other.requests).toEqual([]);
  });

  it('exempts nothing in the deployed configuration', async () => {
    const fixture = await serve(html('internal'));
    await refusal(createSafeFetcher().fetch(`${fixture.origin}/`));
    await refusal(createSafeFetcher({ allow: parseFetchAllow(undefined) }).fetch(`${fixture.origin}/`));
    expect(fixture.requests).toEqual([]);
  });
});

describe('createSafeFetcher connections', () => {
  it('connects to the address it checked and never resolves the name a second time', async () => {
    const fixture = await serve(html('pinned'));
    // A rebinding resolver: first the fixture, afterwards an address where nothing listens.
    const calls: string[] = [];
    const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
      calls.push(hostname);
      return [{ address: calls.length === 1 ? '127.0.0.1' : '192.0.2.1', family: 4 }];
    };
    const fetcher = createSafeFetcher({ lookup, allow: [`rebind.test:${fixture.port}`], connectTimeoutMs: 500 });
    const response = await fetcher.fetch(`http://rebind.test:${fixture.port}/page`);
    expect(response.body.toString()).toBe('pinned');
    expect(response.url).toBe(`http://rebind.test:${fixture.port}/page`);
    expect(calls).toEqual(['rebind.test']);
    expect(fixture.requests[0]?.headers.host).toBe(`rebind.test:${fixture.port}`);
  });

  it('keeps the name for TLS: SNI carries it and a bad certificate is a final tls failure', async () => {
    const servernames: string[] = [];
    const context = createSecureContext({ key: TEST_KEY, cert: TEST_CERT });
    const server = createTlsServer(
      {
        SNICallback: (servername, callback) => {
          servernames.push(servername);
          callback(null, context);
        },
      },
      (_req, res) => res.end('secret'),
    );
    const port = await listen(server);
    const { lookup } = lookupFrom({ 'secure.test': ['127.0.0.1'] });
    const fetcher = createSafeFetcher({ lookup, allow: [`secure.test:${port}`] });
    const error = await failed(fetcher.fetch(`https://secure.test:${port}/`));
    expect(error.kind).toBe('tls');
    expect(error.retryable).toBe(false);
    expect(servernames).toEqual(['secure.test']);
  });

  it('sends the bot User-Agent, an Accept header and the accepted encodings', async () => {
    const fixture = await serve(html('ok'));
    const fetcher = fetcherFor([fixture]);
    await fetcher.fetch(`${fixture.origin}/a?b=c#fragment`);
    await fetcher.fetch(`${fixture.origin}/icon`, { accept: 'image/*' });
    const [page, icon] = fixture.requests;
    expect(page?.path).toBe('/a?b=c');
    expect(page?.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
    expect(page?.headers.accept).toContain('text/html');
    expect(page?.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(icon?.headers.accept).toBe('image/*');
  });

  it('returns status, headers and body of a non-2xx response', async () => {
    const fixture = await serve((_req, res) =>
      res.writeHead(404, { 'content-type': 'text/plain', 'x-a': 'b' }).end('gone'),
    );
    const response = await fetcherFor([fixture]).fetch(`${fixture.origin}/missing`);
    expect(response).toMatchObject({ status: 404, contentType: 'text/plain', truncated: false });
    expect(response.headers['x-a']).toBe('b');
    expect(response.body.toString()).toBe('gone');
  });

  it('reports a refused connection as a retryable network failure', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    server.close();
    await once(server, 'close');
    const error = await failed(createSafeFetcher({ allow: [`127.0.0.1:${port}`] }).fetch(`http://127.0.0.1:${port}/`));
    expect(error).toMatchObject({ kind: 'network', retryable: true });
  });

  it('treats a missing name as final and a resolver hiccup as retryable', async () => {
    const missing = await failed(createSafeFetcher({ lookup: lookupFrom({}).lookup }).fetch('http://missing.test/'));
    expect(missing).toMatchObject({ kind: 'dns', retryable: false });
    const flaky = async (): Promise<ResolvedAddress[]> => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    };
    const again = await failed(createSafeFetcher({ lookup: flaky }).fetch('http://flaky.test/'));
    expect(again).toMatchObject({ kind: 'dns', retryable: true });
  });
});

describe('createSafeFetcher redirects', () => {
  it('follows relative redirects up to the limit and reports the final URL', async () => {
    const fixture = await serve((req, res) => {
      const left = Number(req.url?.split('/')[2]);
      if (left > 0) res.writeHead(left % 2 ? 301 : 307, { location: `/r/${left - 1}` }).end();
      else html('arrived')(req, res);
    });
    const response = await fetcherFor([fixture]).fetch(`${fixture.origin}/r/3`);
    expect(response.url).toBe(`${fixture.origin}/r/0`);
    expect(response.body.toString()).toBe('arrived');
    expect(fixture.requests.map(({ path }) => path)).toEqual(['/r/3', '/r/2', '/r/1', '/r/0']);
  });

  it('refuses a chain longer than maxRedirects without following the extra hop', async () => {
    const fixture = await serve((req, res) => {
      const left = Number(req.url?.split('/')[2]);
      if (left > 0) res.writeHead(302, { location: `/r/${left - 1}` }).end();
      else html('arrived')(req, res);
    });
    expect((await refusal(fetcherFor([fixture]).fetch(`${fixture.origin}/r/4`))).reason).toBe('redirects');
    expect(fixture.requests.map(({ path }) => path)).toEqual(['/r/4', '/r/3', '/r/2', '/r/1']);
    const strict = fetcherFor([fixture], { maxRedirects: 0 });
    expect((await refusal(strict.fetch(`${fixture.origin}/r/1`))).reason).toBe('redirects');
  });

  it('re-checks every hop: an exempt server cannot redirect to an internal one', async () => {
    const internal = await serve(html('internal'));
    const entry = await serve((_req, res) => res.writeHead(302, { location: `${internal.origin}/admin` }).end());
    // The internal port is an allowed port here, so the refusal comes from the address rule.
    const fetcher = fetcherFor([entry], { allowedPorts: [80, 443, internal.port] });
    expect((await refusal(fetcher.fetch(`${entry.origin}/`))).reason).toBe('address');
    expect(entry.requests).toHaveLength(1);
    expect(internal.requests).toEqual([]);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const entry = await serve((_req, res) => res.writeHead(301, { location: 'file:///etc/passwd' }).end());
    expect((await refusal(fetcherFor([entry]).fetch(`${entry.origin}/`))).reason).toBe('scheme');
  });
});

describe('createSafeFetcher limits', () => {
  it('times out a connection that never completes (a TLS handshake that never starts)', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => sockets.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const { port } = silent.address() as AddressInfo;
    try {
      const fetcher = createSafeFetcher({ allow: [`127.0.0.1:${port}`], connectTimeoutMs: 300 });
      const started = Date.now();
      const error = await failed(fetcher.fetch(`https://127.0.0.1:${port}/`));
      expect(error).toMatchObject({ kind: 'timeout', retryable: true });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('times out when the headers never come', async () => {
    const fixture = await serve(() => {});
    const started = Date.now();
    const error = await failed(fetcherFor([fixture], { headersTimeoutMs: 300 }).fetch(`${fixture.origin}/`));
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops a slow-drip body at the total deadline', async () => {
    const fixture = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const drip = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(drip));
    });
    const started = Date.now();
    const error = await failed(fetcherFor([fixture], { totalTimeoutMs: 500 }).fetch(`${fixture.origin}/`));
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('does not wait for a resolver that never answers', async () => {
    const fetcher = createSafeFetcher({ lookup: () => new Promise(() => {}), totalTimeoutMs: 300 });
    expect(await failed(fetcher.fetch('http://slow-dns.test/'))).toMatchObject({ kind: 'timeout' });
  });

  it('reads an oversized body only up to maxBytes and marks it truncated', async () => {
    const size = 5 * 1024 * 1024;
    const fixture = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(size, 7)),
    );
    const fetcher = fetcherFor([fixture], { maxBytes: 1024 * 1024 });
    const response = await fetcher.fetch(`${fixture.origin}/big`);
    expect(response.truncated).toBe(true);
    expect(response.body.length).toBe(1024 * 1024);
    const exact = await fetcher.fetch(`${fixture.origin}/big`, { maxBytes: size });
    expect(exact.truncated).toBe(false);
    expect(exact.body.length).toBe(size);
  });

  it('counts decompressed bytes, so a gzip bomb is cut at maxBytes', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100 * 1024);
    const fixture = await serve((_req, res) => res.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb));
    const response = await fetcherFor([fixture], { maxBytes: 1024 * 1024 }).fetch(`${fixture.origin}/`);
    expect(response.truncated).toBe(true);
    expect(response.body.equals(Buffer.alloc(1024 * 1024))).toBe(true);
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('decodes %s bodies', async (encoding, compress) => {
    const page = '<html><head><title>é</title></head></html>';
    const fixture = await serve((_req, res) =>
      res.writeHead(200, { 'content-encoding': encoding }).end(compress(Buffer.from(page))),
    );
    const response = await fetcherFor([fixture]).fetch(`${fixture.origin}/`);
    expect(response.body.toString()).toBe(page);
    expect(response.truncated).toBe(false);
  });

  it('fails finally, not as a retryable network error, on response headers over the size limit', async () => {
    const site = await serve((_req, res) =>
      res.writeHead(200, { 'x-padding': 'a'.repeat(100 * 1024), 'content-type': 'text/html' }).end('<html></html>'),
    );
    const error = await failure(fetcherFor([site]).fetch(`${site.origin}/`));
    expect(error).toBeInstanceOf(FetchFailedError);
    expect(error).toMatchObject({ kind: 'protocol', retryable: false });
  });

  it('fails finally on corrupt or unknown content encodings', async () => {
    const fixture = await serve((req, res) =>
      res.writeHead(200, { 'content-encoding': req.url === '/corrupt' ? 'gzip' : 'compress' }).end('plain text'),
    );
    const fetcher = fetcherFor([fixture]);
    expect(await failed(fetcher.fetch(`${fixture.origin}/corrupt`))).toMatchObject({
      kind: 'protocol',
      retryable: false,
    });
    expect(await failed(fetcher.fetch(`${fixture.origin}/unknown`))).toMatchObject({
      kind: 'protocol',
      retryable: false,
    });
  });

  it('stops reading at </head> when asked, even if the marker is split across chunks', async () => {
    const fixture = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><meta name="description" content="x"></HE');
      // The rest of the page never comes: only stopping at the head end lets the fetch finish.
      setTimeout(() => res.write('AD><body>'), 50);
    });
    const fetcher = fetcherFor([fixture], { totalTimeoutMs: 400 });
    const response = await fetcher.fetch(`${fixture.origin}/`, { stopAtHeadEnd: true });
    expect(response.truncated).toBe(true);
    expect(response.body.toString()).toMatch(/<\/HEAD>/);
    expect(await failed(fetcher.fetch(`${fixture.origin}/`))).toMatchObject({ kind: 'timeout' });
  });
});

// Self-signed P-256 certificate for secure.test (valid until 2126), only used to fail verification.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgmu1SvY9Z8tVfFLJ+
lnlR/nzCS6EG11Aq9YplB5LOK6ChRANCAARcQ9KvDhweyma3ClN19MWA+S5BFBPv
s1KTCXBP1oYD+Wl2Vxp0tBrUdFz6jBs55mS1SQM4cLr02fjbVU83yXlP
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBnDCCAUGgAwIBAgIUdMPXwgPyjq4XTq52fMPSyCHoDP4wCgYIKoZIzj0EAwIw
FjEUMBIGA1UEAwwLc2VjdXJlLnRlc3QwIBcNMjYxMTIxMTAzMTQyWhgPMjEyNjEw
MjgxMDMxNDJaMBYxFDASBgNVBAMMC3NlY3VyZS50ZXN0MFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEXEPSrw4cHspmtwpTdfTFgPkuQRQT77NSkwlwT9aGA/lpdlca
dLQa1HRc+owbOeZktUkDOHC69Nn421VPN8l5T6NrMGkwHQYDVR0OBBYEFNoFbthm
Wx827kOAwId6u0VvbBBmMB8GA1UdIwQYMBaAFNoFbthmWx827kOAwId6u0VvbBBm
MA8GA1UdEwEB/wQFMAMBAf8wFgYDVR0RBA8wDYILc2VjdXJlLnRlc3QwCgYIKoZI
zj0EAwIDSQAwRgIhAI0u8ef3+ZS5Sz9Mq+lb4QLRIOaxdl2Rql634O0Jc0C5AiEA
oOp77TPOVTfkxpRJ4OtjBV5tva67KZMPfeMXRBIY9I4=
-----END CERTIFICATE-----`;

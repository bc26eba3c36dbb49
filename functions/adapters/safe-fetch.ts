/**
 * The one way background workers fetch user-supplied URLs from inside AWS: a GET that cannot be
 * pointed at the VPC, the metadata service or the host itself (SSRF).
 *
 *   createSafeFetcher(options?) → { fetch(url, { accept?, maxBytes?, stopAtHeadEnd? }) → SafeResponse }
 *
 * Policy, applied to the first URL and again to every redirect target before anything connects:
 * http/https only, no userinfo, port in `allowedPorts` (80, 443), and every address the host name
 * resolves to (or the IP literal) must be public unicast (`isPublicUnicast`). The name is resolved
 * once and undici's connector is given a lookup that returns exactly the checked addresses, so there
 * is no second DNS answer to rebind to; Host and TLS SNI/certificate checks still use the name.
 * `allow` exempts exact `host:port` pairs of the URL (as written, not as resolved) from the port and
 * address rules, for local fixtures such as GLEANER_FETCH_ALLOW=127.0.0.1:8081.
 *
 * Limits: connect and headers timeouts per hop, one `totalTimeoutMs` deadline over DNS, redirects and
 * body; the body is decoded (gzip, deflate, br) and reading stops after `maxBytes` decoded bytes, or,
 * with `stopAtHeadEnd`, after the chunk holding `</head>`. Stopping early is not an error: the response
 * carries what was read and `truncated: true` (a caller that needs the whole body, such as the
 * favicon fetch, treats that as too large). Non-2xx statuses are returned, not thrown.
 *
 * Errors: FetchRefusedError — the policy refused the URL or a redirect target; final, never retry.
 * FetchFailedError — `kind` names the failure and `retryable` says whether a later attempt may succeed:
 * timeout and network are retryable, dns is retryable unless the name does not exist, tls and protocol
 * (unparsable HTTP, oversized response headers, unsupported or corrupt content encoding) are final.
 */
import { lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface SafeFetchOptions {
  /** Default [80, 443]. */
  allowedPorts?: number[];
  /** `host:port` pairs exempt from the port and address rules (see `parseFetchAllow`). */
  allow?: string[];
  /** Default 3. */
  maxRedirects?: number;
  /** Decoded body bytes to read at most; default 2 MiB. */
  maxBytes?: number;
  /** Default 3 s. */
  connectTimeoutMs?: number;
  /** Default 5 s. */
  headersTimeoutMs?: number;
  /** Deadline for the whole fetch, redirects included; default 10 s. */
  totalTimeoutMs?: number;
  userAgent?: string;
  /** All addresses of a name; default the system resolver (`dns.lookup` with `all: true`). */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
}

export interface SafeFetchRequest {
  accept?: string;
  maxBytes?: number;
  /** Stop reading once `</head>` (any case) has been read; for HTML pages. */
  stopAtHeadEnd?: boolean;
}

export interface SafeResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  contentType: string | null;
  /** Decoded body, at most `maxBytes` long. */
  body: Buffer;
  /** Reading stopped before the end of the body (byte cap or `stopAtHeadEnd`). */
  truncated: boolean;
}

export interface SafeFetcher {
  fetch(url: string, request?: SafeFetchRequest): Promise<SafeResponse>;
}

export type RefusalReason = 'url' | 'scheme' | 'credentials' | 'port' | 'address' | 'redirects';

/** The URL or a redirect target is not allowed by policy. Final: retrying cannot change the answer. */
export class FetchRefusedError extends Error {
  override readonly name = 'FetchRefusedError';
  readonly retryable = false;

  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

export type FailureKind = 'timeout' | 'network' | 'dns' | 'tls' | 'protocol';

export class FetchFailedError extends Error {
  override readonly name = 'FetchFailedError';

  constructor(
    readonly kind: FailureKind,
    readonly retryable: boolean,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const DEFAULT_USER_AGENT = 'GleanerBot/1.0 (+https://github.com/gleaner; bookmark enrichment)';
const DEFAULT_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const HEAD_END = /<\/head>/i;
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
// OpenSSL verification codes (DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_VERIFY_LEAF_SIGNATURE, ...) and
// Node's ERR_TLS_* / ERR_SSL_*: a broken certificate or handshake will not heal within retries.
const TLS_CODE = /CERT|SIGNATURE|^ERR_TLS_|^ERR_SSL_/;
// llhttp parse errors (HPE_*), response headers over undici's size limit, zlib (Z_DATA_ERROR, ...)
// and brotli (ERR__ERROR_FORMAT_*) decode errors: the same page answers the same way next time.
const PROTOCOL_CODE = /^HPE_|^UND_ERR_HEADERS_OVERFLOW$|^Z_|^ERR__ERROR_/;
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

type Addresses = [ResolvedAddress, ...ResolvedAddress[]];

/** Splits GLEANER_FETCH_ALLOW ("127.0.0.1:8081, [::1]:8082") into normalised `host:port` pairs; throws on a malformed entry. */
export function parseFetchAllow(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(normaliseHostPort);
}

function normaliseHostPort(entry: string): string {
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/i.test(entry)) {
    throw new Error(`fetch allow entry "${entry}" is not host:port`);
  }
  return hostPortKey(new URL(`http://${entry}`));
}

function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/** `hostname:port` with the URL parser's canonical host (lower case, dotted-quad IPv4, bracketed IPv6). */
function hostPortKey(url: URL): string {
  return `${url.hostname}:${effectivePort(url)}`;
}

/**
 * True only for addresses that are globally routable unicast: not loopback, private, link-local,
 * CGNAT, multicast, broadcast, reserved, documentation or unspecified. IPv4-mapped, NAT64 (64:ff9b::/96)
 * and 6to4 addresses are judged by the IPv4 address they embed; other IPv6 must lie in 2000::/3,
 * which leaves out ULA, site-local and the deprecated IPv4-compatible form; Teredo is refused.
 */
export function isPublicUnicast(address: string): boolean {
  if (!isIP(address)) return false;
  const ip = ipaddr.parse(address);
  if (ip instanceof ipaddr.IPv4) return ip.range() === 'unicast';
  const embedded = embeddedIPv4(ip);
  if (embedded) return embedded.range() === 'unicast';
  return ip.range() === 'unicast' && ip.match(GLOBAL_UNICAST_V6);
}

function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = ip.toByteArray();
  switch (ip.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return new ipaddr.IPv4(bytes.slice(12));
    case '6to4':
      return new ipaddr.IPv4(bytes.slice(2, 6));
    default:
      return null;
  }
}

async function defaultLookup(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await systemLookup(hostname, { all: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

export function createSafeFetcher(options: SafeFetchOptions = {}): SafeFetcher {
  const allowedPorts = options.allowedPorts ?? [80, 443];
  const allow = new Set((options.allow ?? []).map(normaliseHostPort));
  const maxRedirects = options.maxRedirects ?? 3;
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const connectTimeoutMs = options.connectTimeoutMs ?? 3_000;
  const headersTimeoutMs = options.headersTimeoutMs ?? 5_000;
  const totalTimeoutMs = options.totalTimeoutMs ?? 10_000;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const lookup = options.lookup ?? defaultLookup;

  /** Applies the policy to one hop and returns the addresses the connection may use. */
  async function admit(url: URL, signal: AbortSignal): Promise<Addresses> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new FetchRefusedError('scheme', `scheme ${url.protocol} is not fetched`);
    }
    if (url.username || url.password) {
      throw new FetchRefusedError('credentials', 'URLs with credentials are not fetched');
    }
    const exempt = allow.has(hostPortKey(url));
    const port = effectivePort(url);
    if (!exempt && !allowedPorts.includes(port)) {
      throw new FetchRefusedError('port', `port ${port} is not fetched`);
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const family = isIP(host);
    const addresses: Addresses = family
      ? [{ address: host, family: family === 6 ? 6 : 4 }]
      : await resolve(host, signal);
    const blocked = exempt ? undefined : addresses.find(({ address }) => !isPublicUnicast(address));
    if (blocked) {
      throw new FetchRefusedError('address', `${host} is ${blocked.address}, not a public unicast address`);
    }
    return addresses;
  }

  async function resolve(host: string, signal: AbortSignal): Promise<Addresses> {
    let answers: ResolvedAddress[];
    try {
      answers = await untilAborted(lookup(host), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      // NXDOMAIN is an answer; anything else (EAI_AGAIN, SERVFAIL) may pass.
      const retryable = code !== 'ENOTFOUND' && code !== 'ENODATA';
      throw new FetchFailedError('dns', retryable, `cannot resolve ${host}: ${code ?? error}`, { cause: error });
    }
    const [first, ...rest] = answers;
    if (!first) throw new FetchFailedError('dns', false, `${host} has no addresses`);
    return [first, ...rest];
  }

  async function exchange(
    url: URL,
    addresses: Addresses,
    request: SafeFetchRequest,
    signal: AbortSignal,
  ): Promise<SafeResponse | { location: string }> {
    // undici is loaded on the first fetch, not at start: a cold start whose message needs no fetch never pays for it.
    const { Client } = await import('undici');
    const client = new Client(url.origin, {
      connect: { timeout: connectTimeoutMs, lookup: pinnedLookup(addresses) },
      headersTimeout: headersTimeoutMs,
    });
    try {
      const response = await client.request({
        method: 'GET',
        path: url.pathname + url.search,
        headers: {
          'user-agent': userAgent,
          accept: request.accept ?? DEFAULT_ACCEPT,
          'accept-encoding': 'gzip, deflate, br',
        },
        signal,
      });
      const headers = flattenHeaders(response.headers);
      if (REDIRECT_STATUSES.has(response.statusCode) && headers.location) return { location: headers.location };
      const { body, truncated } = await readBody(
        decode(response.body, headers['content-encoding']),
        request.maxBytes ?? maxBytes,
        request.stopAtHeadEnd ?? false,
      );
      return {
        url: url.href,
        status: response.statusCode,
        headers,
        contentType: headers['content-type'] ?? null,
        body,
        truncated,
      };
    } finally {
      // Also closes a socket whose body was left unread (redirects, truncation).
      await client.destroy();
    }
  }

  return {
    async fetch(rawUrl, request = {}) {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), totalTimeoutMs);
      try {
        let url = parseUrl(rawUrl);
        for (let redirects = 0; ; redirects++) {
          const addresses = await admit(url, deadline.signal);
          const result = await exchange(url, addresses, request, deadline.signal);
          if (!('location' in result)) return result;
          if (redirects === maxRedirects) {
            throw new FetchRefusedError('redirects', `more than ${maxRedirects} redirects`);
          }
          url = parseUrl(result.location, url);
        }
      } catch (error) {
        throw toFetchError(error, deadline.signal.aborted);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function parseUrl(value: string, base?: URL): URL {
  try {
    return new URL(value, base);
  } catch {
    throw new FetchRefusedError('url', `not a URL: ${JSON.stringify(value.slice(0, 200))}`);
  }
}

/** A lookup for the socket that answers with the already checked addresses and never asks DNS again. */
function pinnedLookup(addresses: Addresses): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
}

/** `lookup` cannot be cancelled, but the deadline must not wait for it. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** Undoes Content-Encoding (applied in listed order, so decoded in reverse). */
function decode(body: Readable, contentEncoding: string | undefined): Readable {
  const codings = (contentEncoding ?? '')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding && coding !== 'identity');
  const decoders = codings.reverse().map((coding) => {
    const create = DECODERS[coding];
    if (!create) throw new FetchFailedError('protocol', false, `unsupported content-encoding ${coding}`);
    return create();
  });
  const last = decoders.at(-1);
  if (!last) return body;
  // Errors reach the reader through the last stream; the callback only keeps them from going unhandled.
  pipeline([body, ...decoders], () => {});
  return last;
}

async function readBody(
  stream: Readable,
  maxBytes: number,
  stopAtHeadEnd: boolean,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tail = '';
  // Leaving the loop early destroys the stream, which aborts the download (and the decompression).
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
    if (stopAtHeadEnd) {
      // latin1 keeps one character per byte, so the marker is found in any ASCII-compatible charset.
      const text = tail + chunk.toString('latin1');
      if (HEAD_END.test(text)) return { body: Buffer.concat(chunks), truncated: true };
      tail = text.slice(-'</head>'.length + 1);
    }
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

function toFetchError(error: unknown, timedOut: boolean): Error {
  if (error instanceof FetchRefusedError || error instanceof FetchFailedError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (timedOut || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
    return new FetchFailedError('timeout', true, timedOut ? 'fetch deadline exceeded' : message, { cause: error });
  }
  if (typeof code === 'string' && TLS_CODE.test(code)) {
    return new FetchFailedError('tls', false, message, { cause: error });
  }
  if (typeof code === 'string' && PROTOCOL_CODE.test(code)) {
    return new FetchFailedError('protocol', false, message, { cause: error });
  }
  return new FetchFailedError('network', true, message, { cause: error });
}

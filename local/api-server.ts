import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { LOCAL_UPLOAD_PATH, receiveLocalUpload } from '../functions/adapters/upload-store';
import { ASSETS_PATH } from '../functions/core/web/layout';
import {
  CORS_PREFLIGHT_MAX_AGE_SECONDS,
  compileRoutePath,
  corsAllowedOrigins,
  type PreflightSettings,
  pathMethods,
  ROUTE_TIMEOUT_SECONDS,
  type RouteDefinition,
  routeMethods,
} from '../functions/platform/routes';
import type { WebAsset } from '../web/build';
import { lambdaContext, restProxyEvent } from './lambda-runtime';

/**
 * The local stand-in for API Gateway (REST, Lambda proxy integration): matches a request against the
 * shared route table, turns it into the proxy event Lambda would receive, and writes the handler's
 * result back as the HTTP response.
 */

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface LocalRoute {
  readonly definition: RouteDefinition;
  readonly handler: ProxyHandler;
  /**
   * Headers of the answers this server makes itself for the route (413), as an API Gateway gateway
   * response would carry them: the handler did not run, so there is no limiter state to report.
   */
  readonly gatewayHeaders: () => Record<string, string>;
}

/** API Gateway refuses larger payloads (10 MB). */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** A request must arrive whole within this time (API Gateway's integration timeout is 29 s). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface ApiServerOptions {
  /** The routes, or null while their handlers are still loading (every request then answers 503). */
  routes: () => readonly LocalRoute[] | null;
  corsOrigins: readonly string[];
  /** The web app's static assets by file name, served under /assets/ (CloudFront's web bucket when deployed). */
  assets?: () => ReadonlyMap<string, WebAsset>;
  /** The folder import uploads are kept in: the server plays the bucket's presigned PUT at LOCAL_UPLOAD_PATH. */
  uploadFolder?: string;
  log?: (line: string) => void;
}

/** The answer of the request whose work is running, and its server's log: for an error nothing caught. */
const requestInFlight = new AsyncLocalStorage<{ response: ServerResponse; log?: (line: string) => void }>();

/**
 * Makes an error nothing caught (a promise no one awaited that rejected, a callback that threw) what
 * Lambda makes it, the end of one invocation, not of the server: it is logged, and the request whose
 * work it came from (found through the async context it came from) is answered 500. An error from no
 * request is only logged. For the process that runs the local stack (npm start).
 */
export function keepServingOnStrayErrors(log: (line: string) => void): void {
  const answer = (error: unknown) => {
    const current = requestInFlight.getStore();
    (current?.log ?? log)(
      `local API server: unhandled error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    if (current && !current.response.headersSent) {
      send(current.response, { statusCode: 500, body: JSON.stringify({ detail: 'Internal Server Error' }) });
    }
  };
  process.on('unhandledRejection', answer);
  process.on('uncaughtException', answer);
}

export function createApiServer(options: ApiServerOptions): Server {
  // The request and answer in progress on each connection, so a parser error answers through it.
  const inFlight = new WeakMap<Duplex, { request: IncomingMessage; response: ServerResponse }>();
  const server = createServer({ requestTimeout: REQUEST_TIMEOUT_MS }, (request, response) => {
    const started = Date.now();
    inFlight.set(request.socket, { request, response });
    response.on('finish', () => {
      inFlight.delete(request.socket);
      options.log?.(`${request.method} ${request.url} → ${response.statusCode} (${Date.now() - started} ms)`);
    });
    requestInFlight.run({ response, log: options.log }, () =>
      dispatch(options, request, response).catch((error: unknown) => {
        options.log?.(`local API server error: ${String(error)}`);
        if (!response.headersSent) send(response, { statusCode: 502, body: JSON.stringify({ detail: 'Bad Gateway' }) });
      }),
    );
  });
  // Node's own answers to what it cannot parse (a 100 KB header, a bad method, a body shorter than
  // its Content-Length) have no body; API Gateway's, like every error here, have a `detail`.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const statusCode =
      error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ detail: STATUS_CODES[statusCode] });
    const answerOnSocket = () => {
      if (!socket.writable) return void socket.destroy();
      const head = [
        `HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode]}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
      ];
      socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
    };
    const current = inFlight.get(socket);
    if (!current) return answerOnSocket();
    // A request whose body never arrived whole (shorter than its Content-Length): this is its answer.
    if (!current.request.complete && !current.response.headersSent) {
      return send(current.response, {
        statusCode,
        headers: { 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' },
        body,
      });
    }
    // Bytes after a whole request (a Content-Length shorter than the body sent) parse as a next
    // request: the first still gets its own answer, then this one, once, and the connection closes.
    if (current.response.writableFinished) return answerOnSocket();
    current.response.once('finish', answerOnSocket);
  });
  return server;
}

/** How long a client should wait while the handlers load (well under a second on a laptop). */
const STARTING_RETRY_AFTER_SECONDS = 1;

async function dispatch(options: ApiServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname.startsWith(`${ASSETS_PATH}/`) && options.assets)
    return serveAsset(options.assets(), url, request, response);
  if (url.pathname.startsWith(LOCAL_UPLOAD_PATH) && options.uploadFolder)
    return receiveUpload(options.uploadFolder, url, request, response);
  const routes = options.routes();
  if (routes === null) {
    // Listening before the handlers are loaded: a client told "not found" now would think the address wrong.
    return send(response, {
      statusCode: 503,
      headers: { 'Retry-After': String(STARTING_RETRY_AFTER_SECONDS) },
      body: JSON.stringify({ detail: `Starting up; retry in ${STARTING_RETRY_AFTER_SECONDS} s` }),
    });
  }
  const candidates = routes.flatMap((route) => {
    const { pattern, params } = compileRoutePath(route.definition.path);
    const match = pattern.exec(url.pathname);
    return match
      ? [
          {
            route,
            pathParameters: Object.fromEntries(params.map((name, i) => [name, decodePathSegment(match[i + 1]!)])),
          },
        ]
      : [];
  });

  const preflight = candidates.find(({ route }) => route.definition.preflight)?.route.definition.preflight;
  if (request.method === 'OPTIONS' && preflight) {
    return send(
      response,
      preflightAnswer(
        corsAllowedOrigins(preflight, options.corsOrigins),
        preflight,
        request,
        candidates.map(({ route }) => route.definition.method),
      ),
    );
  }
  const found = candidates.find(({ route }) => routeMethods(route.definition).includes(request.method ?? ''));
  if (!found && candidates.length) {
    // As the stack's mock method for the methods a route's path does not take.
    const allow = pathMethods(
      candidates.map(({ route }) => route.definition),
      candidates[0]!.route.definition.path,
    );
    return send(response, {
      statusCode: 405,
      // As every answer of a rate-limited route: its policy at full quota (the limiter never saw it).
      headers: { ...candidates[0]!.route.gatewayHeaders(), Allow: allow.join(', ') },
      body: JSON.stringify({ detail: 'Method Not Allowed' }),
    });
  }
  // The stack maps API Gateway's answer to an unknown resource to this 404.
  if (!found) return send(response, { statusCode: 404, body: JSON.stringify({ detail: 'Not Found' }) });

  const body = await readBody(request);
  if (body === null) {
    return send(response, {
      statusCode: 413,
      headers: { ...found.route.gatewayHeaders(), Connection: 'close' },
      body: JSON.stringify({ detail: 'Request body too large' }),
    });
  }
  const event = proxyEvent(request, url, found.route.definition, found.pathParameters, body);
  send(
    response,
    await found.route.handler(event, lambdaContext(found.route.definition.id, ROUTE_TIMEOUT_SECONDS * 1000)),
  );
}

function proxyEvent(
  request: IncomingMessage,
  url: URL,
  route: RouteDefinition,
  pathParameters: Record<string, string>,
  body: Buffer,
): APIGatewayProxyEvent {
  // Without a prototype, so a header or parameter named `__proto__` or `constructor` is just a name,
  // as in the JSON event API Gateway sends.
  const headers: Record<string, string> = Object.create(null);
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!;
    const value = request.rawHeaders[i + 1]!;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    (multiQuery[name] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const text = body.length ? body.toString('utf8') : null;
  // Bodies that are not valid UTF-8 reach Lambda base64-encoded, as with API Gateway binary media types.
  const binary = text !== null && !Buffer.from(text, 'utf8').equals(body);
  return restProxyEvent({
    httpMethod: request.method ?? 'GET',
    resource: route.path,
    path: url.pathname,
    resourceId: route.id,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
    body: binary ? body.toString('base64') : text,
    isBase64Encoded: binary,
    sourceIp: (request.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
    protocol: `HTTP/${request.httpVersion}`,
  });
}

/** A path parameter decoded as API Gateway passes it; a malformed escape stays as written, for the handler to refuse. */
function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A web asset as the web bucket serves it through CloudFront (404 in the contract's shape for any other file). */
function serveAsset(
  assets: ReadonlyMap<string, WebAsset>,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const asset = assets.get(url.pathname.slice(ASSETS_PATH.length + 1));
  if (!asset || (request.method !== 'GET' && request.method !== 'HEAD')) {
    send(response, { statusCode: 404, body: JSON.stringify({ detail: 'Not Found' }) });
    return;
  }
  response.writeHead(200, {
    'Content-Type': asset.contentType,
    'Content-Length': String(asset.body.length),
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  });
  response.end(request.method === 'HEAD' ? undefined : asset.body);
}

/**
 * A PUT to an upload URL, as S3 answers a presigned one: 200 once kept. The web app PUTs from its own
 * origin, so, as the bucket's CORS rule does, any origin may PUT (the URL's unguessable key is the key).
 */
async function receiveUpload(folder: string, url: URL, request: IncomingMessage, response: ServerResponse) {
  const cors = { 'Access-Control-Allow-Origin': '*' };
  if (request.method === 'OPTIONS')
    return send(response, {
      statusCode: 204,
      headers: { ...cors, 'Access-Control-Allow-Methods': 'PUT', 'Access-Control-Allow-Headers': '*' },
      body: '',
    });
  if (request.method !== 'PUT')
    return send(response, {
      statusCode: 405,
      headers: { Allow: 'PUT' },
      body: JSON.stringify({ detail: 'Method Not Allowed' }),
    });
  const kept = await receiveLocalUpload(folder, url.pathname.slice(LOCAL_UPLOAD_PATH.length), request);
  send(
    response,
    kept
      ? { statusCode: 200, headers: cors, body: '' }
      : { statusCode: 404, headers: cors, body: JSON.stringify({ detail: 'Not Found' }) },
  );
}

function preflightAnswer(
  corsOrigins: readonly string[],
  preflight: PreflightSettings,
  request: IncomingMessage,
  methods: string[],
): APIGatewayProxyResult {
  const origin = request.headers.origin;
  const allowed = corsOrigins.includes('*') ? '*' : origin && corsOrigins.includes(origin) ? origin : null;
  return {
    statusCode: 204,
    headers: {
      ...(allowed ? { 'Access-Control-Allow-Origin': allowed } : {}),
      'Access-Control-Allow-Methods': ['OPTIONS', ...methods].join(','),
      'Access-Control-Allow-Headers': preflight.allowHeaders.join(','),
      'Access-Control-Max-Age': String(CORS_PREFLIGHT_MAX_AGE_SECONDS),
      ...(allowed === '*' ? {} : { Vary: 'Origin' }),
    },
    body: '',
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(
  response: ServerResponse,
  result: Pick<APIGatewayProxyResult, 'statusCode' | 'body'> & Partial<APIGatewayProxyResult>,
): void {
  // Header names are case-insensitive: one value per name, as API Gateway sends it. API Gateway's
  // default content type for a proxy answer that names none.
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    headers[name.toLowerCase()] = values.map(String);
  }
  if (result.body && !headers['content-type']) headers['content-type'] = 'application/json';
  response.writeHead(result.statusCode, headers);
  response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { userRateLimitSubject } from '../adapters/dynamo/account-deletion';
import { createSqsClient, SqsJsonPublisher } from '../adapters/sqs/sqs';
import type { RateLimiter, RateLimitPolicy } from '../core/contract/rate-limit';
import type { OwnerPorts } from '../core/owner/library';
import type { ReviewPorts } from '../core/review/use-cases';
import type { SaveBookmarkPorts } from '../core/save/save-bookmark';
import type { SearchPorts } from '../core/search/search';
import { serviceBaseUrl } from '../http/base-url';
import { eventBody, toFetchRequest } from '../http/fetch-exchange';
import { addressQuotaSubject } from '../http/owner-access';
import { authenticateBearer, type OwnerAuthDeps } from '../http/owner-auth';
import { ownerDeps } from '../http/owner-deps';
import { feedAddresses } from '../http/published-feed';
import { rateLimited } from '../http/rate-limited';
import { errorResponse, header, jsonResponse } from '../http/responses';
import { type RouteCall, routeWrapper } from '../http/route-wrapper';
import { searchOnFirstUse } from '../http/search-ports';
import { temporaryFaultRetryAfter } from '../http/temporary-fault';
import { deferred, type Environment } from '../platform/env';
import { setting, settings } from '../platform/settings';
import type { Tracing } from '../platform/tracing';
import { scopesNeeded } from './access';
import type { McpPorts } from './tool';

/**
 * `POST /mcp`: the MCP server over Streamable HTTP, stateless (each request builds its server for the
 * principal of its access token, so it runs on Lambda as it does locally; ./server.ts, loaded on the
 * first admitted request), answering JSON rather than streams. Before the SDK's transport sees a request: the Origin check (DNS rebinding), the access
 * token (issued for this resource, holding the scopes the call needs), and the user's and the
 * client's quotas.
 */

export interface McpDeps extends Omit<OwnerPorts, 'feedLinks'>, ReviewPorts {
  readonly auth: OwnerAuthDeps;
  readonly save: Omit<SaveBookmarkPorts, 'logger'>;
  readonly search: () => Promise<SearchPorts>;
  readonly rateLimiter: RateLimiter;
  /** The user's quota, shared with the per-user API. */
  readonly rateLimitPolicy: RateLimitPolicy;
  /** Each client's quota within its user's. */
  readonly clientRateLimitPolicy: RateLimitPolicy;
  /** Browser origins allowed besides the service's own. */
  readonly allowedOrigins: readonly string[];
  readonly publicBaseUrl: string | null;
  readonly logger: Logger;
  readonly tracing?: Tracing;
}

/** Larger requests get 413 from the transport: the largest save (URL, title, selection, comment) is well under it. */
const MAX_REQUEST_BYTES = 512 * 1024;

export function makeHandler(deps: McpDeps) {
  return routeWrapper(
    { Mcp: (call) => mcpRoute(deps, call) },
    {
      logger: deps.logger,
      tracing: deps.tracing,
      corsOrigins: [],
      entry: 'functions/mcp/handler.ts',
      rateLimit: { limiter: deps.rateLimiter, policy: deps.rateLimitPolicy },
    },
  );
}

async function mcpRoute(deps: McpDeps, { event, request }: RouteCall): Promise<APIGatewayProxyResult> {
  const baseUrl = serviceBaseUrl(event, deps.auth.publicBaseUrl, deps.auth.trustCdnHeaders);
  // DNS rebinding: a page of another site in the person's browser must not reach the tools.
  const origin = header(event.headers, 'Origin');
  if (origin !== undefined && !ownOrigins(deps, baseUrl).has(origin))
    return errorResponse(403, `Requests from the origin ${origin} are not allowed here`);
  const body = eventBody(event);
  const message = body.length <= MAX_REQUEST_BYTES ? parsedJson(body) : undefined;
  const access = await authenticateBearer(deps.auth, event, 'mcp', scopesNeeded(message));
  // Token holders count against their own quota and their client's, refused callers against their address's.
  const limit = await request.rateLimit(
    access.ok ? userRateLimitSubject(access.principal.userId) : addressQuotaSubject(event),
  );
  if (!limit.allowed) return rateLimited(limit);
  if (!access.ok) return access.response;
  const { principal } = access;
  const clientLimit = await request.rateLimit(
    `mcp-client:${principal.userId}:${principal.clientId}`,
    deps.clientRateLimitPolicy,
  );
  if (!clientLimit.allowed) return rateLimited(clientLimit);
  // MCP 2025-06-18 dropped JSON-RPC batching: one message a request, so one request is one call of the quota.
  if (Array.isArray(message)) {
    return jsonResponse(400, {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message: 'Invalid Request: JSON-RPC batches are not supported; send one message a request',
      },
    });
  }

  const feedsBaseUrl = serviceBaseUrl(event, deps.publicBaseUrl, false);
  const ports: McpPorts = {
    owner: { ...deps, feedLinks: (feedId) => feedAddresses(feedsBaseUrl, feedId) },
    save: { ...deps.save, logger: deps.logger },
    search: deps.search,
    review: deps,
    unexpected: (error) => unexpected(deps.logger, error),
  };
  const { answerMcp } = await import('./server');
  const answer = await answerMcp(ports, principal, toFetchRequest(event, baseUrl), MAX_REQUEST_BYTES);
  // The caller's own data: no shared cache may keep it.
  return { ...answer, headers: { ...answer.headers, 'Cache-Control': 'private, no-store' } };
}

/** The service's own origins (the one the request came to, the configured ones) and those allowed besides. */
function ownOrigins(deps: McpDeps, baseUrl: string): Set<string> {
  const addresses = [baseUrl, deps.auth.publicBaseUrl, deps.publicBaseUrl].flatMap((url) =>
    url ? [new URL(url).origin] : [],
  );
  return new Set([...addresses, ...deps.allowedOrigins]);
}

function parsedJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    // The transport answers a malformed body with its JSON-RPC parse error.
    return undefined;
  }
}

/** A failure no use case expects: logged whole, told to the client as whether to retry. */
function unexpected(logger: Logger, error: unknown): string {
  const retryAfter = temporaryFaultRetryAfter(error);
  if (retryAfter !== null) {
    logger.warn('Temporary fault in an MCP tool', { error: error as Error });
    return `Gleaner is briefly unavailable: retry in ${retryAfter} s.`;
  }
  logger.error('MCP tool failed', { error: error as Error });
  return 'Gleaner failed to do this (an internal error, logged on the server).';
}

export function createHandler(env: Environment) {
  const { deps, authDeps } = ownerDeps(env);
  return makeHandler({
    ...deps,
    auth: authDeps,
    save: {
      store: deps.notes,
      enrichment: new SqsJsonPublisher(
        createSqsClient({ endpoint: setting(env, settings.sqsEndpoint), instrument: deps.tracing.instrument }),
        setting(env, settings.enrichmentQueueUrl),
      ),
      newId: deps.newId,
      now: deps.now,
    },
    search: searchOnFirstUse(env),
    clientRateLimitPolicy: setting(env, settings.mcpClientRateLimit),
    allowedOrigins: setting(env, settings.mcpAllowedOrigins),
  });
}

export const handler = deferred(() => createHandler(process.env));

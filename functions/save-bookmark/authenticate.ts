import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { clientQuotaKey } from '../core/contract/rate-limit';
import type { AccessToken } from '../core/model';
import type { SaveContextReader } from '../core/save/save-bookmark';
import { lastUseDue, tokenAccepted, userAgentFamily } from '../core/token/lifecycle';
import { bearerToken, hashToken } from '../core/token/token';
import { isWellFormedToken } from '../core/wire/token-format';
import { RouteAnswer, type RouteMiddleware, routeRequest } from '../http/middleware';
import { rateLimited } from '../http/rate-limited';
import { errorResponse, header, headerValues } from '../http/responses';
import { metricNames } from '../platform/metric-names';
import { count } from '../platform/observability';

/** The caller a personal access token names, and what the save reads with the token (the host's icon). */
interface Caller {
  readonly token: AccessToken;
  readonly siteIcon: string | null;
}

export type AuthenticatedEvent<Event extends APIGatewayProxyEvent> = Event & { caller: Caller };

export interface AuthenticationDeps {
  readonly accounts: SaveContextReader;
  readonly metrics: Parameters<typeof count>[0];
  readonly logger: { warn(message: string, extra: Record<string, unknown>): void };
  readonly now: () => Date;
}

/**
 * Bearer authentication of the save route, as middy middleware: the token checked and counted
 * against its quota (callers without a valid token against their address's), answering 429 or 401
 * before the handler runs. The `Bearer` scheme is matched case-insensitively, as RFC 9110 §11.1 has it.
 * `host` names the saved page's host, whose known icon is read in the same round trip as the token.
 */
export function authenticate<Event extends APIGatewayProxyEvent>(
  deps: AuthenticationDeps,
  host: (event: Event) => string | null,
): RouteMiddleware<AuthenticatedEvent<Event>> {
  // The token's last use, recorded off the critical path while the save runs; the answer waits for it.
  const recording = new WeakMap<Context, Promise<void>>();
  const settle = async ({ context }: { context: Context }) => {
    await recording.get(context);
  };
  return {
    before: async (request) => {
      const { event, context } = request;
      const limiter = routeRequest(context);
      const authorization = headerValues(event, 'Authorization');
      // Two credentials are ambiguous: which one a proxy on the way would keep is anybody's guess.
      const ambiguous = authorization.length > 1;
      const token = ambiguous ? null : bearerToken(authorization[0]);
      // A token that fails its checksum is rejected without a database call. A well-formed one counts
      // against its own quota (keyed by its hash) while it is being looked up: one round trip, not two.
      const tokenHash = token && isWellFormedToken(token) ? hashToken(token) : null;
      const [saveContext, tokenLimit] = tokenHash
        ? await Promise.all([
            deps.accounts.loadSaveContext(tokenHash, host(event)),
            limiter.rateLimit(`token:${tokenHash}`),
          ])
        : [{ token: null, siteIcon: null }, null];
      const now = deps.now();
      const caller = saveContext.token && tokenAccepted(saveContext.token, now) ? saveContext.token : null;
      if (caller && tokenHash && lastUseDue(caller, now)) {
        recording.set(context, recordTokenUse(deps, tokenHash, now, event));
      }
      // Callers without a valid token share their address's quota (an IPv6 /64's): a refused token counts there too.
      const limit =
        caller && tokenLimit
          ? tokenLimit
          : await limiter.rateLimit(`ip:${clientQuotaKey(event.requestContext.identity.sourceIp)}`);
      if (!limit.allowed) {
        count(deps.metrics, metricNames.saveRateLimited);
        throw new RouteAnswer(rateLimited(limit));
      }
      if (!caller) {
        count(deps.metrics, metricNames.saveUnauthorized);
        const detail = ambiguous
          ? 'Ambiguous credentials: send exactly one Authorization header'
          : token === null
            ? 'Not authenticated: send Authorization: Bearer <token>'
            : 'Invalid, expired or revoked token';
        throw new RouteAnswer(errorResponse(401, detail, { 'WWW-Authenticate': 'Bearer realm="gleaner"' }));
      }
      event.caller = { token: caller, siteIcon: saveContext.siteIcon };
    },
    after: settle,
    onError: settle,
  };
}

/** Never fails the save: the next use records it. */
async function recordTokenUse(
  deps: AuthenticationDeps,
  tokenHash: string,
  now: Date,
  event: APIGatewayProxyEvent,
): Promise<void> {
  try {
    await deps.accounts.recordTokenUse(tokenHash, now, userAgentFamily(header(event.headers, 'User-Agent')));
  } catch (error) {
    deps.logger.warn("Recording the token's last use failed; the next use records it", { error: String(error) });
  }
}

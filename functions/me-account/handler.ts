import type { Logger } from '@aws-lambda-powertools/logger';
import { DynamoAccountStore } from '../adapters/dynamo/account-store';
import { createDynamoClients } from '../adapters/dynamo/client';
import { DynamoIdentityStore } from '../adapters/dynamo/identity-store';
import { httpRoute } from '../http/middleware';
import { authenticateOwner, type OwnerAuthDeps, ownerAuthDeps } from '../http/owner-auth';
import { errorResponse, jsonResponse } from '../http/responses';
import { deferred, type Environment } from '../platform/env';
import { createLogger } from '../platform/observability';
import { setting, settings } from '../platform/settings';
import { createTracing, type Tracing } from '../platform/tracing';

/** GET /api/v2/me — the signed-in account (session or OAuth access token for the per-user API). */

export interface MeAccountDeps extends OwnerAuthDeps {
  readonly accounts: Pick<DynamoAccountStore, 'getUser'>;
  readonly identities: Pick<DynamoIdentityStore, 'getLoginOfUser'>;
  readonly logger: Logger;
  readonly tracing?: Tracing;
}

export function makeHandler(deps: MeAccountDeps) {
  return httpRoute(
    async (event) => {
      const auth = await authenticateOwner(deps, event);
      if (!auth.ok) return auth.response;
      const { userId } = auth.principal;
      const [user, login] = await Promise.all([deps.accounts.getUser(userId), deps.identities.getLoginOfUser(userId)]);
      if (!user) return errorResponse(401, 'The account no longer exists');
      return jsonResponse(
        200,
        {
          id: user.id,
          name: user.name,
          email: login?.email ?? null,
          email_verified: login?.verified ?? false,
          plan: user.plan,
          note_count: user.noteCount,
          note_cap: user.noteCap,
          created: user.created,
        },
        { 'Cache-Control': 'no-store' },
      );
    },
    { logger: deps.logger, tracing: deps.tracing, corsOrigins: [] },
  );
}

export function createHandler(env: Environment) {
  const tableName = setting(env, settings.tableName);
  const tracing = createTracing();
  const { doc } = createDynamoClients({
    endpoint: setting(env, settings.dynamoEndpoint),
    instrument: tracing.instrument,
  });
  return makeHandler({
    ...ownerAuthDeps(env, doc),
    accounts: new DynamoAccountStore(doc, tableName),
    identities: new DynamoIdentityStore(doc, tableName),
    logger: createLogger(env),
    tracing,
  });
}

export const handler = deferred(() => createHandler(process.env));

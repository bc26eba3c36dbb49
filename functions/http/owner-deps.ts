import { randomUUID } from 'node:crypto';
import { createArticleStore } from '../adapters/article-store';
import { DynamoAccountStore } from '../adapters/dynamo/account-store';
import { DynamoBookmarkStore } from '../adapters/dynamo/bookmark-store';
import { tableFromEnv } from '../adapters/dynamo/client';
import { DynamoFeedStore } from '../adapters/dynamo/feed-store';
import { DynamoIdentityStore } from '../adapters/dynamo/identity-store';
import { DynamoLinkStore } from '../adapters/dynamo/link-store';
import { DynamoRateLimiter } from '../adapters/dynamo/rate-limiter';
import { DynamoReviewStore } from '../adapters/dynamo/review-store';
import type { Environment } from '../platform/env';
import { createLogger } from '../platform/observability';
import { rateLimitSettings, setting, settings } from '../platform/settings';
import { createTracing } from '../platform/tracing';
import type { Authenticate } from './owner-access';
import { authenticateOwner, ownerAuthDeps } from './owner-auth';

/**
 * What every function of the owner's side admits its callers with: the table, authentication, the
 * owner's quota, logs and traces. Search builds on this alone, so its bundle carries none of the
 * stores it does not use.
 */
export function ownerAdmissionDeps(env: Environment) {
  const tracing = createTracing();
  const { doc, tableName } = tableFromEnv(env, tracing.instrument);
  const authDeps = ownerAuthDeps(env, doc);
  return {
    doc,
    tableName,
    authDeps,
    deps: {
      authenticate: ((event, options) => authenticateOwner(authDeps, event, options)) satisfies Authenticate,
      rateLimiter: new DynamoRateLimiter(doc, tableName),
      rateLimitPolicy: setting(env, rateLimitSettings.owner),
      publicBaseUrl: setting(env, settings.publicBaseUrl) ?? null,
      webBaseUrl: authDeps.publicBaseUrl,
      logger: createLogger(env),
      tracing,
      doc,
      tableName,
      newId: randomUUID,
      now: () => new Date(),
    },
  };
}

/** What the owner's functions (the per-user API and the signed-in pages) are built from, in Lambda and locally. */
export function ownerDeps(env: Environment) {
  const { doc, tableName, authDeps, deps } = ownerAdmissionDeps(env);
  const accounts = new DynamoAccountStore(doc, tableName);
  return {
    authDeps,
    deps: {
      ...deps,
      notes: new DynamoBookmarkStore(doc, tableName),
      articles: createArticleStore(setting(env, settings.articleStore)),
      links: new DynamoLinkStore(doc, tableName),
      feeds: new DynamoFeedStore(doc, tableName),
      tokens: accounts,
      accounts,
      logins: new DynamoIdentityStore(doc, tableName),
      review: new DynamoReviewStore(doc, tableName),
    },
  };
}

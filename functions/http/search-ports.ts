import type { ShardedSearchIndex } from '../adapters/search/sharded-index';
import type { SearchPorts } from '../core/search/search';
import type { Environment } from '../platform/env';

/**
 * The search index and embedder the environment names, opened on the first call and kept for the
 * container's life; a failed open is tried again by the next call rather than failing every one
 * after it. LanceDB (a native module) loads then, not at init.
 */
export function searchOnFirstUse(
  env: Environment,
): () => Promise<SearchPorts & { readonly index: ShardedSearchIndex }> {
  let opened: Promise<SearchPorts & { readonly index: ShardedSearchIndex }> | undefined;
  return () =>
    (opened ??= import('../adapters/search/search-services')
      .then(async (services) => ({
        index: await services.openIndexFromEnv(env),
        embedder: services.embedderFromEnv(env),
      }))
      .catch((error: unknown) => {
        opened = undefined;
        throw error;
      }));
}

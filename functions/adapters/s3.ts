import type { S3Client } from '@aws-sdk/client-s3';

type S3Sdk = typeof import('@aws-sdk/client-s3');

/** The S3 SDK's commands and errors, with a client made from them. */
export interface S3 {
  readonly sdk: S3Sdk;
  readonly client: S3Client;
}

/**
 * The S3 SDK (about 120 KiB, a third again of the DynamoDB client's init) and a client, loaded on the
 * first call and kept for the container's life: the functions that keep articles or uploads in S3
 * touch them on a few routes only, so a cold start neither parses nor runs them. A failed load is
 * tried again by the next call.
 */
export function s3OnFirstUse(options: { endpoint?: string } = {}): () => Promise<S3> {
  let loaded: Promise<S3> | undefined;
  return () =>
    (loaded ??= import('@aws-sdk/client-s3')
      .then((sdk) => ({ sdk, client: new sdk.S3Client({ endpoint: options.endpoint }) }))
      .catch((error: unknown) => {
        loaded = undefined;
        throw error;
      }));
}

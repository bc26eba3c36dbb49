import type { errors as ProviderErrors } from 'oidc-provider';
import type { DynamoClients } from '../adapters/dynamo/client';
import { AlreadyConsumedError, DynamoOAuthAdapter } from '../adapters/dynamo/oauth-adapter';

/**
 * The table adapter as oidc-provider sees it: a request that lost the race for a code or refresh
 * token gets the protocol's invalid_grant, as a replay does, rather than a server error.
 */
export class ProviderAdapter extends DynamoOAuthAdapter {
  constructor(
    name: string,
    doc: DynamoClients['doc'],
    tableName: string,
    private readonly errors: typeof ProviderErrors,
  ) {
    super(name, doc, tableName);
  }

  override async consume(id: string): Promise<void> {
    try {
      await super.consume(id);
    } catch (error) {
      if (error instanceof AlreadyConsumedError) throw new this.errors.InvalidGrant(error.message);
      throw error;
    }
  }
}
